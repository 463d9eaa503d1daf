import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createProject, join, organization } from '../projects/projects-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createCollection, everyPage, getCollection, setCollectionPermissions, type Collection } from './collections-fixtures.ts';

/**
 * A listing page sends each collection's stored document (migration 0051) with the caller's
 * own parts added in Node (collection-document.ts); a single read builds the same
 * Collection field by field (presentCollection). Every collection a caller lists, whole, in
 * pages of the default size and in small pages, must equal its single read for that caller:
 * texts that JSON must escape, a project owner, ancestors the caller may not see, a system
 * administrator, and an owner whose name is read at listing time.
 */
describe('listed collections equal their single reads', () => {
  let h: Harness;
  let owner: User;
  let subReader: User;
  let member: User;
  let admin: User;
  const read = () => request(h.queryApp);

  beforeAll(async () => {
    h = await startHarness('all');
    owner = await h.createUser();
    subReader = await h.createUser();
    member = await h.createUser();
    admin = await h.createUser({ admin: true });
    const org = await organization(h, 'Documents Institute');
    await join(h, org, owner);
    const project = await createProject(h, owner, org, 'Documents "project" ✓');
    await addMember(h, owner, project.id, member, 'viewer');

    const odd = {
      title: 'Quote " back\\slash \u0001 tab\t ünïcödé 𝄞',
      description: 'Two\nlines, </script> \u2028 and',
      alias: 'odd-alias',
      tags: ['comma, inside', 'quote "', '{braces}'],
      type: ['dataset', 'back\\slash'],
      license: 'CC-BY-4.0',
    };
    const top = await createCollection(h, owner, odd);
    const middle = await createCollection(h, owner, { title: 'Middle', parent_id: top.id });
    const leaf = await createCollection(h, owner, { title: 'Leaf', parent_id: middle.id, tags: ['x'] });
    await createCollection(h, owner, { title: 'Under leaf', parent_id: leaf.id });
    // Seen from the middle down only: the top's id must not be told.
    await setCollectionPermissions(h, owner, middle.id, [{ subject_type: 'user', subject_id: subReader.id, flags: 1 | 64 }]);
    const projectOwned = await createCollection(h, owner, { title: 'Project owned', owner_type: 'project', owner_id: project.id });
    await createCollection(h, owner, { title: 'Project child', parent_id: projectOwned.id, owner_type: 'project', owner_id: project.id });
    for (let i = 0; i < 5; i += 1) await createCollection(h, owner, { title: `Plain ${i}` });
  }, 120_000);
  afterAll(async () => h?.close());

  async function expectListingEqualsReads(user: User, titles: readonly string[]) {
    const res = await read().get('/api/collections/').set(bearer(user)).expect(200);
    expect(() => JSON.parse(res.text) as unknown).not.toThrow();
    const whole = res.body as Collection[];
    expect(whole.map((c) => c.title)).toEqual(expect.arrayContaining([...titles]));
    // The default size keeps its plan after its third run (prepared-statements.ts): the kept statement answers alike.
    for (let run = 0; run < 4; run += 1) {
      const defaultPage = (await read().get('/api/collections/?limit=100').set(bearer(user)).expect(200)).body as Collection[];
      expect(defaultPage).toEqual(whole);
    }
    const small = await everyPage<Collection>(h, user, '/api/collections/', 2);
    expect(small).toEqual(whole);
    for (const listed of whole) expect(listed, listed.title).toEqual(await getCollection(h, user, listed.id));
    return whole;
  }

  it("the owner's, a project member's, a sub-collection reader's and a system administrator's listings", async () => {
    const mine = await expectListingEqualsReads(owner, ['Middle', 'Leaf', 'Under leaf', 'Project owned', 'Project child', 'Plain 0', 'Plain 4']);
    const odd = mine.find((c) => c.title.startsWith('Quote'));
    expect(odd?.tags).toEqual(['comma, inside', 'quote "', '{braces}']);
    expect(odd?.description).toBe('Two\nlines, </script> \u2028 and');
    expect(mine.find((c) => c.title === 'Project owned')?.owner_project_name).toBe('Documents "project" ✓');

    const partial = await expectListingEqualsReads(subReader, ['Middle', 'Leaf', 'Under leaf']);
    expect(partial.filter((c) => c.owner_user_id === owner.id)).toHaveLength(3);
    const middle = partial.find((c) => c.title === 'Middle');
    expect(middle?.parent_id).toBeNull();
    expect(middle?.parent_ids).toEqual([]);
    const underLeaf = partial.find((c) => c.title === 'Under leaf');
    expect(underLeaf?.parent_ids).toEqual([middle?.id, partial.find((c) => c.title === 'Leaf')?.id]);

    await expectListingEqualsReads(member, ['Project owned', 'Project child']);
    const all = (await read().get('/api/collections/').set(bearer(admin)).expect(200)).body as Collection[];
    for (const listed of all.filter((c) => mine.some((m) => m.id === c.id))) expect(listed).toEqual(await getCollection(h, admin, listed.id));
  });

  it('an edited collection is listed as it is read', async () => {
    const mine = (await read().get('/api/collections/').set(bearer(owner)).expect(200)).body as Collection[];
    const leaf = mine.find((c) => c.title === 'Leaf');
    await request(h.commandApp)
      .patch(`/api/collections/${leaf?.id ?? ''}/`)
      .set(bearer(owner))
      .send({ title: 'Leaf, "edited"', tags: ['y', 'z'], description: 'Now described', license: 'MIT' })
      .expect(200);
    const listed = await expectListingEqualsReads(owner, ['Leaf, "edited"']);
    const edited = listed.find((c) => c.id === leaf?.id);
    expect(edited?.tags).toEqual(['y', 'z']);
    expect(edited?.updated_at).not.toBe(leaf?.updated_at);
  });

  it("an owner's new name shows in the next listing", async () => {
    await h.resources.pool.query('update users set name = $2 where id = $1', [owner.id, 'Renamed "owner"']);
    const mine = await expectListingEqualsReads(owner, ['Middle', 'Plain 1']);
    expect(new Set(mine.filter((c) => c.owner_user_id === owner.id).map((c) => c.owner_user_name))).toEqual(new Set(['Renamed "owner"']));
  });
});
