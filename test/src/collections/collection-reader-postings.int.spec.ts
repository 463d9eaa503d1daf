import { collectionsProjection, rebuildBlueGreen } from '@cairn/projections';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join, organizationWith } from '../groups/groups-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createCollection, everyPage, moveCollection, setCollectionPermissions, type Collection } from './collections-fixtures.ts';

const READ = 1;

/**
 * collection_reader_order (migration 0045), the readers' postings the collection listing
 * walks per principal, follow every change of who may read a collection: its creation
 * under a shared parent, its own entries, an ancestor's entries, a move of a subtree into
 * and out of a shared one, deletion; and a rebuild of the collections projection makes the
 * same rows again. Each step is checked twice: the postings equal the collections'
 * readers, and a reader's paged listing shows exactly what it may see.
 */
describe('the readers kept as postings of the collection listing', () => {
  let h: Harness;
  let owner: User;
  let reader: User;

  beforeAll(async () => {
    h = await startHarness('all');
    owner = await h.createUser();
    reader = await h.createUser();
  });
  afterAll(async () => {
    await h.close();
  });

  /** The postings that differ from the collections' readers, either way: none when they are kept. */
  const drift = async () =>
    (
      await h.resources.pool.query<{ collection_id: string; principal: string }>(`
        (select c.id as collection_id, r as principal, c.created_at from collections c, unnest(c.readers) r
         except select collection_id, principal, created_at from collection_reader_order)
        union all
        (select collection_id, principal, created_at from collection_reader_order
         except select c.id, r, c.created_at from collections c, unnest(c.readers) r)`)
    ).rows;
  const postings = async () =>
    (await h.resources.pool.query<{ collection_id: string; principal: string }>('select collection_id, principal from collection_reader_order order by collection_id, principal')).rows;

  /** The titles of what `reader` sees among `ours`, through pages of one (the postings' walk, resumed at each cursor). */
  const seen = async (ours: readonly Collection[]) => {
    const ids = new Set(ours.map((c) => c.id));
    const paged = await everyPage<Collection>(h, reader, '/api/collections/', 1);
    const whole = (await request(h.queryApp).get('/api/collections/').set(bearer(reader)).expect(200)).body as Collection[];
    expect(whole.map((c) => c.id)).toEqual(paged.map((c) => c.id));
    expect(await drift()).toEqual([]);
    return paged
      .filter((c) => ids.has(c.id))
      .map((c) => c.title)
      .sort();
  };

  it('follow creation, entries, an ancestor’s entries, moves and deletion; a rebuild makes the same rows', async () => {
    const shared = await createCollection(h, owner, { title: 'shared' });
    await setCollectionPermissions(h, owner, shared.id, [{ subject_type: 'user', subject_id: reader.id, flags: READ }]);
    const inside = await createCollection(h, owner, { title: 'inside', parent_id: shared.id });
    const apart = await createCollection(h, owner, { title: 'apart' });
    const child = await createCollection(h, owner, { title: 'child', parent_id: apart.id });
    const grandchild = await createCollection(h, owner, { title: 'grandchild', parent_id: child.id });
    const ours = [shared, inside, apart, child, grandchild];
    // Created under a shared parent: the reader sees it at once, through the parent's entry.
    expect(await seen(ours)).toEqual(['inside', 'shared']);

    // A subtree moved into the shared one: every collection of it, down to the grandchild.
    await moveCollection(h, owner, apart.id, shared.id);
    expect(await seen(ours)).toEqual(['apart', 'child', 'grandchild', 'inside', 'shared']);
    // And out again, under a collection the reader does not see.
    const hidden = await createCollection(h, owner, { title: 'hidden' });
    await moveCollection(h, owner, apart.id, hidden.id);
    expect(await seen(ours)).toEqual(['inside', 'shared']);

    // A collection's own entry, then the same reader granted on an ancestor too: one posting each.
    await setCollectionPermissions(h, owner, child.id, [{ subject_type: 'user', subject_id: reader.id, flags: READ }]);
    expect(await seen(ours)).toEqual(['child', 'grandchild', 'inside', 'shared']);
    await setCollectionPermissions(h, owner, hidden.id, [{ subject_type: 'user', subject_id: reader.id, flags: READ }]);
    expect(await seen([...ours, hidden])).toEqual(['apart', 'child', 'grandchild', 'hidden', 'inside', 'shared']);
    // The ancestor's entry taken away: what the child's own entry gives stays.
    await setCollectionPermissions(h, owner, hidden.id, []);
    expect(await seen([...ours, hidden])).toEqual(['child', 'grandchild', 'inside', 'shared']);
    // Taken away at the top of the shared subtree: nothing of it is left.
    await setCollectionPermissions(h, owner, shared.id, []);
    expect(await seen(ours)).toEqual(['child', 'grandchild']);

    await request(h.commandApp).delete(`/api/collections/${grandchild.id}/`).set(bearer(owner)).expect(204);
    expect(await seen(ours)).toEqual(['child']);
    expect((await postings()).filter((p) => p.collection_id === grandchild.id)).toEqual([]);

    const before = await postings();
    // A posting no event made: the rebuild's tables are made from the log alone.
    await h.resources.pool.query("insert into collection_reader_order (collection_id, principal, created_at) values (gen_random_uuid(), 'u:nobody', now())");
    await rebuildBlueGreen({ ...h.resources, inline: true }, collectionsProjection);
    expect(await postings()).toEqual(before);
    expect(await seen(ours)).toEqual(['child']);
    // The rebuilt postings were vacuumed before the swap: their walks read the index alone at once.
    const { rows: visible } = await h.resources.pool.query<{ pages: number; visible: number }>("select relpages as pages, relallvisible as visible from pg_class where relname = 'collection_reader_order' and relnamespace = 'public'::regnamespace");
    expect(visible[0]?.visible).toBeGreaterThan(0);
    // The rebuilt table's indexes are made as the live ones were, their options with them (migration 0046).
    const { rows } = await h.resources.pool.query<{ options: string[] | null }>("select reloptions as options from pg_class where relname = 'collections_title_search' and relnamespace = 'public'::regnamespace");
    expect(rows[0]?.options).toContain('fastupdate=off');
  });

  it("merge the walks of the caller's principals, each collection once, and show nothing a posting alone names", async () => {
    const org = await organizationWith(h, 'Postings org');
    const member = org.member;
    // The owner may name the organization and its group only as one of its members (DECISIONS.md 2).
    await join(h, org.id, owner);
    const granted = async (title: string, entries: { subject_type: string; subject_id?: string }[]) => {
      const made = await createCollection(h, owner, { title });
      await setCollectionPermissions(h, owner, made.id, entries.map((e) => ({ ...e, flags: READ })));
      return made;
    };
    const both = await granted('both', [
      { subject_type: 'user', subject_id: member.id },
      { subject_type: 'organization', subject_id: org.id },
      { subject_type: 'group', subject_id: org.membersGroupId },
    ]);
    const direct = await granted('direct', [{ subject_type: 'user', subject_id: member.id }]);
    const byOrg = await granted('by organization', [{ subject_type: 'organization', subject_id: org.id }]);
    const byGroup = await granted('by group', [{ subject_type: 'group', subject_id: org.membersGroupId }]);
    const hidden = await createCollection(h, owner, { title: 'hidden' });
    // A posting no grant gives (as a process older than migration 0045 could leave): the collection's own readers still decide.
    await h.resources.pool.query('insert into collection_reader_order (collection_id, principal, created_at) select id, $2, created_at from collections where id = $1', [hidden.id, `u:${member.id}`]);
    const ours = new Set([both, direct, byOrg, byGroup, hidden].map((c) => c.id));
    for (const limit of [1, 2, 100]) {
      const listed = (await everyPage<Collection>(h, member, '/api/collections/', limit)).filter((c) => ours.has(c.id));
      expect(listed.map((c) => c.title), `pages of ${limit}`).toEqual(['by group', 'by organization', 'direct', 'both']);
    }
    const whole = ((await request(h.queryApp).get('/api/collections/').set(bearer(member)).expect(200)).body as Collection[]).filter((c) => ours.has(c.id));
    expect(whole.map((c) => c.title)).toEqual(['by group', 'by organization', 'direct', 'both']);
    expect((await request(h.queryApp).get(`/api/collections/${hidden.id}/`).set(bearer(member))).status).toBe(404);
  });
});
