import type { CommandContext } from '../shared/command-context.ts';
import { assertNever, type Decider } from '../shared/decider.ts';
import type { CollectionCommand } from './commands.ts';
import { collectionErrors } from './errors.ts';
import type { CollectionEvent, CollectionId } from './events.ts';
import { evolve, initialState, type CollectionState } from './state.ts';

export function decide(command: CollectionCommand, state: CollectionState, _context: CommandContext): readonly CollectionEvent[] {
  switch (command.type) {
    case 'CreateRootCollection': {
      if (state.status !== 'absent') throw collectionErrors.alreadyExists();
      const title = command.title.trim();
      if (title.length === 0 || title.length > 255) throw collectionErrors.invalidTitle();
      return [
        {
          type: 'CollectionCreated',
          data: {
            id: command.id,
            title,
            description: '',
            alias: '',
            tags: [],
            type: [],
            license: '',
            parentId: null,
            ownerType: 'project',
            ownerUserId: null,
            ownerProjectId: command.projectId,
            isRoot: true,
            preferredRepositoryId: null,
          },
        },
      ];
    }
    case 'DeleteRootCollection':
      if (state.status !== 'active' || !state.isRoot || state.ownerProjectId !== command.projectId) throw collectionErrors.notFound();
      return [{ type: 'CollectionDeleted', data: { id: command.id } }];
    default:
      return assertNever(command);
  }
}

export const collectionDecider: Decider<CollectionCommand, CollectionEvent, CollectionState> = {
  initialState,
  evolve,
  decide,
};

export const collectionStream = (id: CollectionId | string) => `collection-${id}`;
