import { describe, expect, it } from 'vitest';
import { DomainError } from '../shared/errors.ts';
import type { CollectionCommand } from './commands.ts';
import { collectionDecider } from './decide.ts';
import type { CollectionEvent, CollectionId } from './events.ts';

const id = 'c1' as CollectionId;
const context = { actor: { userId: 'u', isSystemAdmin: false }, now: '2026-01-01T00:00:00.000Z' };

function given(events: readonly CollectionEvent[]) {
  const state = events.reduce(collectionDecider.evolve, collectionDecider.initialState);
  return (command: CollectionCommand) => {
    try {
      return { events: collectionDecider.decide(command, state, context), code: null };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return { events: [], code: error.code };
    }
  };
}

describe('collection decider (root collections)', () => {
  it('records a project’s root collection, titled after the project', () => {
    const { events } = given([])({ type: 'CreateRootCollection', id, projectId: 'p1', title: 'Survey' });
    expect(events).toEqual([
      {
        type: 'CollectionCreated',
        data: { id, title: 'Survey', description: '', alias: '', tags: [], type: [], license: '', parentId: null, ownerType: 'project', ownerUserId: null, ownerProjectId: 'p1', isRoot: true, preferredRepositoryId: null },
      },
    ]);
    expect(given(events)({ type: 'CreateRootCollection', id, projectId: 'p1', title: 'Survey' }).code).toBe('already_exists');
  });

  it('deletes the root only for its own project', () => {
    const created = given([])({ type: 'CreateRootCollection', id, projectId: 'p1', title: 'Survey' }).events;
    expect(given(created)({ type: 'DeleteRootCollection', id, projectId: 'p2' }).code).toBe('not_found');
    expect(given(created)({ type: 'DeleteRootCollection', id, projectId: 'p1' }).events).toEqual([{ type: 'CollectionDeleted', data: { id } }]);
  });
});
