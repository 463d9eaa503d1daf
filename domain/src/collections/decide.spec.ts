import { describe, expect, it } from 'vitest';
import { givenFor } from '../shared/decider-spec.ts';
import { collectionDecider } from './decide.ts';
import type { CollectionId } from './events.ts';

const id = 'c1' as CollectionId;
const context = { actor: { userId: 'u', isSystemAdmin: false }, now: '2026-01-01T00:00:00.000Z' };

const given = givenFor(collectionDecider, context);

describe('collection decider (root collections)', () => {
  it('records a project’s root collection, titled after the project', () => {
    const { events } = given([]).when({ type: 'CreateRootCollection', id, projectId: 'p1', title: 'Survey' });
    expect(events).toEqual([
      {
        type: 'CollectionCreated',
        data: { id, title: 'Survey', description: '', alias: '', tags: [], type: [], license: '', parentId: null, ownerType: 'project', ownerUserId: null, ownerProjectId: 'p1', isRoot: true, preferredRepositoryId: null, revision: 1 },
      },
    ]);
    expect(given(events).when({ type: 'CreateRootCollection', id, projectId: 'p1', title: 'Survey' }).code).toBe('already_exists');
  });

  it('deletes the root only for its own project', () => {
    const created = given([]).when({ type: 'CreateRootCollection', id, projectId: 'p1', title: 'Survey' }).events;
    expect(given(created).when({ type: 'DeleteRootCollection', id, projectId: 'p2' }).code).toBe('not_found');
    expect(given(created).when({ type: 'DeleteRootCollection', id, projectId: 'p1' }).events).toEqual([{ type: 'CollectionDeleted', data: { id } }]);
  });
});
