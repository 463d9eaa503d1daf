import type { collections } from '@cairn/domain';
import type { Projection } from '../runner/projection.ts';
import { insert, remove } from '../runner/row-ops.ts';

type Event = collections.CollectionEvent;

/** Collections (interface 2.3); for now the root collections of projects. */
export const collectionsProjection: Projection = {
  name: 'collections',
  version: 2,
  handles: ['CollectionCreated', 'CollectionDeleted'],
  tables: ['collections'],
  project(recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'CollectionCreated': {
        const d = event.data;
        return [
          insert(
            'collections',
            {
              id: d.id,
              title: d.title,
              description: d.description,
              alias: d.alias,
              tags: [...d.tags],
              type: [...d.type],
              license: d.license,
              parent_id: d.parentId,
              // A root has no ancestors; the collections issue fills this for children.
              parent_ids: [],
              owner_type: d.ownerType,
              owner_user_id: d.ownerUserId,
              owner_project_id: d.ownerProjectId,
              is_root: d.isRoot,
              preferred_repository_id: d.preferredRepositoryId,
              provenance_token: null,
              created_at: at,
              updated_at: at,
            },
            { key: ['id'] },
          ),
        ];
      }
      case 'CollectionDeleted':
        return [remove('collections', { id: event.data.id })];
    }
  },
};
