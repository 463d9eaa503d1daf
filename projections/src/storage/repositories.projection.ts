import type { storage } from '@cairn/domain';
import type { Projection } from '../runner/projection.ts';
import { insert } from '../runner/row-ops.ts';

/** Storage repositories (docs/storage.md): created by operators, never changed through the API. */
export const repositoriesProjection: Projection = {
  name: 'repositories',
  version: 1,
  handles: ['RepositoryCreated'],
  tables: ['repositories'],
  project(recorded) {
    const event = { type: recorded.type, data: recorded.data } as storage.RepositoryEvent;
    const { id, name, config } = event.data;
    return [insert('repositories', { id, name, kind: config.kind, config, created_at: recorded.metadata.occurredAt }, { key: ['id'] })];
  },
};
