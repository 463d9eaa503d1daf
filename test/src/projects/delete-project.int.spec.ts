import { createApp } from '@cairn/cli';
import type { EventStore } from '@cairn/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type Project, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { addMember, createProject, projectWorld } from './projects-fixtures.ts';

/** The harness's event store, except that appends to streams with this prefix fail as a lost connection would. */
function failingAppendsTo(store: EventStore, prefix: string): EventStore {
  return {
    ...store,
    appendToStream: async (streamId, events, options) => {
      if (streamId.startsWith(prefix)) throw new Error(`injected failure appending to ${streamId}`);
      return store.appendToStream(streamId, events, options);
    },
  };
}

describe('deleting a project and its root collection', () => {
  let h: Harness;
  let world: Awaited<ReturnType<typeof projectWorld>>;

  beforeAll(async () => {
    h = await startHarness('all');
    world = await projectWorld(h, 'Deletion Lab');
  });
  afterAll(async () => h.close());

  /** With the command side writing through a store that fails on one kind of stream. */
  const appFailingOn = (prefix: string) => createApp({ ...h.resources, eventStore: failingAppendsTo(h.resources.eventStore, prefix) }, 'command');
  const rootEvents = async (project: Project) => (await h.resources.eventStore.readStream(`collection-${project.root_collection_id}`)).events.map((e) => e.type);
  const projectEvents = async (project: Project) => (await h.resources.eventStore.readStream(`project-${project.id}`)).events.map((e) => e.type);
  const remove = (caller: User, project: Project) => request(h.commandApp).delete(`/api/projects/${project.id}/`).set(bearer(caller));

  it('can be retried when deleting the root collection failed: the project is still there until its root is gone', async () => {
    const project = await createProject(h, world.projectAdmin, world.organizationId, 'Root fails');
    const failed = await request(appFailingOn('collection-')).delete(`/api/projects/${project.id}/`).set(bearer(world.projectAdmin));
    expect(failed.status).toBe(500);
    // Nothing was deleted: the project is not left behind for a retry to miss.
    expect(await projectEvents(project)).not.toContain('ProjectDeleted');
    expect(await rootEvents(project)).toEqual(['CollectionCreated']);
    await request(h.queryApp).get(`/api/projects/${project.id}/`).set(bearer(world.projectAdmin)).expect(200);

    await remove(world.projectAdmin, project).expect(204);
    expect(await rootEvents(project)).toEqual(['CollectionCreated', 'CollectionDeleted']);
    await request(h.queryApp).get(`/api/projects/${project.id}/`).set(bearer(world.projectAdmin)).expect(404);
    const { rows } = await h.resources.pool.query('select count(*)::int as roots from collections where id = $1', [project.root_collection_id]);
    expect(rows).toEqual([{ roots: 0 }]);
  });

  it('finishes on a retry when the root collection was deleted and the project was not', async () => {
    const project = await createProject(h, world.projectAdmin, world.organizationId, 'Project fails');
    const failed = await request(appFailingOn('project-')).delete(`/api/projects/${project.id}/`).set(bearer(world.projectAdmin));
    expect(failed.status).toBe(500);
    expect(await projectEvents(project)).not.toContain('ProjectDeleted');

    await remove(world.projectAdmin, project).expect(204);
    expect(await rootEvents(project)).toEqual(['CollectionCreated', 'CollectionDeleted']);
    expect(await projectEvents(project)).toContain('ProjectDeleted');
    await request(h.queryApp).get(`/api/projects/${project.id}/`).set(bearer(world.projectAdmin)).expect(404);
    await remove(world.projectAdmin, project).expect(404);
  });

  it('leaves the root collection alone when the caller may not delete the project', async () => {
    const project = await createProject(h, world.projectAdmin, world.organizationId, 'Kept');
    await addMember(h, world.projectAdmin, project.id, world.member, 'member');
    const refused = await remove(world.member, project).expect(403);
    expect(refused.body.code).toBe('permission_denied');
    await remove(world.outsider, project).expect(404);
    expect(await rootEvents(project)).toEqual(['CollectionCreated']);
    expect(await projectEvents(project)).not.toContain('ProjectDeleted');
  });
});
