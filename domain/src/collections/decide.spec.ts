import { describe, expect, it } from 'vitest';
import { principal, type AssetAuthority } from '../assets/access.ts';
import type { CommandContext } from '../shared/command-context.ts';
import { givenFor } from '../shared/decider-spec.ts';
import { allPermissionBits, permissionBits as b } from '../shared/permissions.ts';
import type { ChangeCollection, CreateCollection, DeleteCollection, MoveCollection, ReplaceCollectionPermissions } from './commands.ts';
import { collectionDecider } from './decide.ts';
import { collectionLimits, type CollectionDetails, type CollectionEvent, type CollectionId } from './events.ts';
import { provenanceToken } from './state.ts';

const id = 'c1' as CollectionId;
const owner = 'owner';
const stranger = 'stranger';
const project = 'p1';
const now = '2026-01-01T00:00:00.000Z';
const as = (userId: string | null, isSystemAdmin = false): CommandContext => ({ actor: { userId, isSystemAdmin }, now });
const context = as('u');
const authorityOf = (userId: string, ...more: string[]): AssetAuthority => ({ principals: [principal.everyone, principal.user(userId), ...more], inheritedFlags: 0 });

const given = givenFor(collectionDecider, context);

const details: CollectionDetails = { title: 'Cores', description: '', alias: '', tags: [], type: [], license: '', preferredRepositoryId: null };
/** What the parent must give a creator or a mover. */
const listAndWrite = b.LIST | b.WRITE_METADATA;

const created: CollectionEvent = {
  type: 'CollectionCreated',
  data: { id, ...details, parentId: 'root', ownerType: 'user', ownerUserId: owner, ownerProjectId: null, isRoot: false, revision: 1 },
};
const userRoot: CollectionEvent = {
  type: 'CollectionCreated',
  data: { id, ...details, title: 'Home', parentId: null, ownerType: 'user', ownerUserId: owner, ownerProjectId: null, isRoot: true, revision: 1 },
};
const renamed = (title: string, revision: number): CollectionEvent => ({ type: 'CollectionUpdated', data: { id, changes: { title }, revision } });

const create = (overrides: Partial<CreateCollection> = {}): CreateCollection => ({
  type: 'CreateCollection',
  id,
  details,
  owner: { ownerType: 'user', ownerId: owner },
  parentId: 'root',
  parentFlags: allPermissionBits,
  authority: authorityOf(owner),
  ...overrides,
});
const change = (changes: Partial<CollectionDetails>, overrides: Partial<ChangeCollection> = {}): ChangeCollection => ({ type: 'ChangeCollection', id, changes, flags: allPermissionBits, ...overrides });
const move = (overrides: Partial<MoveCollection> = {}): MoveCollection => ({
  type: 'MoveCollection',
  id,
  parentId: 'other',
  parentAncestors: ['root'],
  flags: allPermissionBits,
  parentFlags: allPermissionBits,
  ...overrides,
});
const remove = (overrides: Partial<DeleteCollection> = {}): DeleteCollection => ({ type: 'DeleteCollection', id, flags: allPermissionBits, cascaded: false, recursive: false, empty: true, ...overrides });
const replace = (entries: ReplaceCollectionPermissions['entries'], flags: number = allPermissionBits): ReplaceCollectionPermissions => ({ type: 'ReplaceCollectionPermissions', id, entries, flags });

describe('collection decider: root collections', () => {
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

  it('records a user’s root collection once, and titles blank or long names sensibly', () => {
    const { events } = given([]).when({ type: 'CreateUserRootCollection', id, userId: owner, title: '  ' });
    expect(events).toEqual([{ type: 'CollectionCreated', data: { id, ...details, title: 'Home', parentId: null, ownerType: 'user', ownerUserId: owner, ownerProjectId: null, isRoot: true, revision: 1 } }]);
    expect(given(events).when({ type: 'CreateUserRootCollection', id, userId: owner, title: 'Home' }).code).toBe('already_exists');
    const long = given([]).when({ type: 'CreateRootCollection', id, projectId: 'p1', title: 'x'.repeat(300) }).events[0];
    expect(long?.type === 'CollectionCreated' && long.data.title).toBe('x'.repeat(collectionLimits.title));
  });

  it('deletes the root only for its own project', () => {
    const created = given([]).when({ type: 'CreateRootCollection', id, projectId: 'p1', title: 'Survey' }).events;
    expect(given(created).when({ type: 'DeleteRootCollection', id, projectId: 'p2' }).code).toBe('not_found');
    expect(given(created).when({ type: 'DeleteRootCollection', id, projectId: 'p1' }).events).toEqual([{ type: 'CollectionDeleted', data: { id } }]);
    // Not a user's root, and not a collection that is no root.
    expect(given([userRoot]).when({ type: 'DeleteRootCollection', id, projectId: 'p1' }).code).toBe('not_found');
    expect(given([]).when({ type: 'DeleteRootCollection', id, projectId: 'p1' }).code).toBe('not_found');
  });
});

describe('collection decider: create', () => {
  it('creates a collection under its parent with trimmed details, revision 1', () => {
    const result = given([]).when(create({ details: { ...details, title: '  Cores ', alias: ' c ', tags: [' a ', 'a', 'b'], type: ['t'], license: ' CC-BY ', preferredRepositoryId: 'r1' } }), as(owner));
    expect(result.events).toEqual([
      {
        type: 'CollectionCreated',
        data: { id, ...details, title: 'Cores', alias: 'c', tags: ['a', 'b'], type: ['t'], license: 'CC-BY', preferredRepositoryId: 'r1', parentId: 'root', ownerType: 'user', ownerUserId: owner, ownerProjectId: null, isRoot: false, revision: 1 },
      },
    ]);
    expect(given([created]).when(create(), as(owner)).code).toBe('already_exists');
  });

  it('lets a user create only for themselves; a system administrator for anyone', () => {
    expect(given([]).when(create({ owner: { ownerType: 'user', ownerId: stranger } }), as(owner)).code).toBe('permission_denied');
    expect(given([]).when(create({ owner: { ownerType: 'user', ownerId: stranger } }), as(owner, true)).code).toBeNull();
  });

  it('lets project admins and members create for the project, not its viewers or outsiders', () => {
    const forProject = (...keys: string[]) => create({ owner: { ownerType: 'project', ownerId: project }, authority: authorityOf(owner, ...keys) });
    const ok = given([]).when(forProject(principal.projectRole(project, 'admin'), principal.projectMember(project)), as(owner));
    expect(ok.events[0]?.data).toMatchObject({ ownerType: 'project', ownerProjectId: project, ownerUserId: null });
    expect(given([]).when(forProject(principal.projectRole(project, 'member'), principal.projectMember(project)), as(owner)).code).toBeNull();
    expect(given([]).when(forProject(principal.projectRole(project, 'viewer'), principal.projectMember(project)), as(owner)).code).toBe('permission_denied');
    expect(given([]).when(forProject(principal.projectMember(project)), as(owner)).code).toBe('permission_denied');
    expect(given([]).when(forProject(principal.projectRole('p2', 'admin')), as(owner)).code).toBe('permission_denied');
    expect(given([]).when(forProject(), as(owner, true)).code).toBeNull();
  });

  it('needs LIST and WRITE_METADATA on the parent (not for a system administrator)', () => {
    for (const parentFlags of [0, b.READ_METADATA, b.LIST, b.WRITE_METADATA, allPermissionBits & ~b.LIST, allPermissionBits & ~b.WRITE_METADATA]) {
      expect(given([]).when(create({ parentFlags }), as(owner)).code).toBe('permission_denied');
    }
    expect(given([]).when(create({ parentFlags: listAndWrite }), as(owner)).code).toBeNull();
    expect(given([]).when(create({ parentFlags: 0, owner: { ownerType: 'user', ownerId: stranger } }), as(owner, true)).code).toBeNull();
  });

  it('holds every field to its limits', () => {
    const at = (changes: Partial<CollectionDetails>) => given([]).when(create({ details: { ...details, ...changes } }), as(owner)).code;
    expect(at({ title: 'x'.repeat(collectionLimits.title) })).toBeNull();
    expect(at({ title: 'x'.repeat(collectionLimits.title + 1) })).toBe('invalid_title');
    expect(at({ title: '   ' })).toBe('invalid_title');
    expect(at({ license: 'x'.repeat(collectionLimits.license) })).toBeNull();
    expect(at({ license: 'x'.repeat(collectionLimits.license + 1) })).toBe('invalid_license');
    expect(at({ alias: 'x'.repeat(collectionLimits.alias) })).toBeNull();
    expect(at({ alias: 'x'.repeat(collectionLimits.alias + 1) })).toBe('invalid_alias');
    expect(at({ description: 'x'.repeat(collectionLimits.description) })).toBeNull();
    expect(at({ description: 'x'.repeat(collectionLimits.description + 1) })).toBe('invalid_description');
    expect(at({ tags: ['x'.repeat(collectionLimits.tag)] })).toBeNull();
    expect(at({ tags: ['x'.repeat(collectionLimits.tag + 1)] })).toBe('invalid_tags');
    expect(at({ tags: [' '] })).toBe('invalid_tags');
    expect(at({ tags: Array.from({ length: collectionLimits.tagCount }, (_, i) => `t${i}`) })).toBeNull();
    expect(at({ tags: Array.from({ length: collectionLimits.tagCount + 1 }, (_, i) => `t${i}`) })).toBe('invalid_tags');
    // Duplicates count once.
    expect(at({ tags: [...Array.from({ length: collectionLimits.tagCount }, (_, i) => `t${i}`), 't0'] })).toBeNull();
    expect(at({ type: ['x'.repeat(collectionLimits.tag + 1)] })).toBe('invalid_type');
    expect(at({ type: Array.from({ length: collectionLimits.tagCount + 1 }, (_, i) => `t${i}`) })).toBe('invalid_type');
  });
});

describe('collection decider: change', () => {
  it('records only what changes, with the next revision', () => {
    expect(given([created]).when(change({ title: ' New ', alias: '', tags: [] })).events).toEqual([{ type: 'CollectionUpdated', data: { id, changes: { title: 'New' }, revision: 2 } }]);
    expect(given([created, renamed('New', 2)]).when(change({ description: 'd' })).events).toEqual([{ type: 'CollectionUpdated', data: { id, changes: { description: 'd' }, revision: 3 } }]);
  });

  it('changes nothing when nothing differs (no event, no new revision)', () => {
    expect(given([created]).when(change({ title: 'Cores', description: '', tags: [] })).events).toEqual([]);
    expect(given([created]).when(change({})).events).toEqual([]);
    expect(given([created]).when(change({ title: ' Cores ' })).events).toEqual([]);
  });

  it('holds changes to the limits', () => {
    expect(given([created]).when(change({ title: '' })).code).toBe('invalid_title');
    expect(given([created]).when(change({ alias: 'x'.repeat(collectionLimits.alias + 1) })).code).toBe('invalid_alias');
    expect(given([created]).when(change({ license: 'x'.repeat(collectionLimits.license + 1) })).code).toBe('invalid_license');
    expect(given([created]).when(change({ tags: ['x'.repeat(collectionLimits.tag + 1)] })).code).toBe('invalid_tags');
  });

  it('needs WRITE_METADATA; without READ_METADATA the collection is hidden', () => {
    expect(given([created]).when(change({ title: 'x' }, { flags: b.READ_METADATA })).code).toBe('permission_denied');
    expect(given([created]).when(change({ title: 'x' }, { flags: allPermissionBits & ~b.WRITE_METADATA })).code).toBe('permission_denied');
    expect(given([created]).when(change({ title: 'x' }, { flags: b.WRITE_METADATA })).code).toBe('not_found');
    expect(given([created]).when(change({ title: 'x' }, { flags: 0 })).code).toBe('not_found');
    expect(given([created]).when(change({ title: 'x' }, { flags: b.READ_METADATA | b.WRITE_METADATA })).code).toBeNull();
    expect(given([created]).when(change({ title: 'x' }, { flags: 0 }), as('u', true)).code).toBeNull();
  });

  it('checks If-Match against the provenance token of the current revision (412 provenance_mismatch)', () => {
    const history = [created, renamed('Two', 2), renamed('Three', 3)];
    expect(given(history).when(change({ title: 'x' }, { ifMatch: provenanceToken(id, 3) })).events).toHaveLength(1);
    expect(given(history).when(change({ title: 'x' }, { ifMatch: provenanceToken(id, 2) })).code).toBe('provenance_mismatch');
    expect(given(history).when(change({ title: 'x' }, { ifMatch: provenanceToken(id, 1) })).code).toBe('provenance_mismatch');
    expect(given(history).when(change({ title: 'x' }, { ifMatch: provenanceToken('c2', 3) })).code).toBe('provenance_mismatch');
    expect(given(history).when(change({ title: 'x' }, { ifMatch: 'garbage' })).code).toBe('provenance_mismatch');
    // Even a change that would change nothing is refused on a stale token.
    expect(given(history).when(change({ title: 'Three' }, { ifMatch: provenanceToken(id, 1) })).code).toBe('provenance_mismatch');
    // No If-Match: no precondition.
    expect(given(history).when(change({ title: 'x' })).code).toBeNull();
  });

  it('gives every kind of change its own revision (and so its own token)', () => {
    const moved: CollectionEvent = { type: 'CollectionMoved', data: { id, parentId: 'other', revision: 2 } };
    const granted: CollectionEvent = { type: 'CollectionPermissionsSet', data: { id, entries: [{ subjectType: 'public', subjectId: null, flags: 1 }], revision: 3 } };
    expect(given([created, moved, granted]).state).toMatchObject({ revision: 3, parentId: 'other' });
    expect(given([created, moved, granted]).when(change({ title: 'x' })).events).toEqual([{ type: 'CollectionUpdated', data: { id, changes: { title: 'x' }, revision: 4 } }]);
    expect(given([created, moved]).when(move({ parentId: 'third' })).events).toEqual([{ type: 'CollectionMoved', data: { id, parentId: 'third', revision: 3 } }]);
    expect(new Set([1, 2, 3, 4].map((r) => provenanceToken(id, r))).size).toBe(4);
    // Events stored before revisions existed count as revision 1.
    const { revision: _revision, ...withoutRevision } = created.data as typeof created.data & { revision?: number };
    expect(given([{ type: 'CollectionCreated', data: withoutRevision }]).state).toMatchObject({ revision: 1 });
  });

  it('answers not_found for a collection that never was or is deleted', () => {
    expect(given([]).when(change({ title: 'x' })).code).toBe('not_found');
    expect(given([created, { type: 'CollectionDeleted', data: { id } }]).when(change({ title: 'x' })).code).toBe('not_found');
  });
});

describe('collection decider: move', () => {
  it('moves under a new parent with the next revision', () => {
    expect(given([created]).when(move()).events).toEqual([{ type: 'CollectionMoved', data: { id, parentId: 'other', revision: 2 } }]);
  });

  it('needs MANAGE on the collection and LIST plus WRITE_METADATA on the new parent', () => {
    expect(given([created]).when(move({ flags: allPermissionBits & ~b.MANAGE })).code).toBe('permission_denied');
    expect(given([created]).when(move({ flags: b.READ_METADATA | b.MANAGE })).code).toBeNull();
    for (const parentFlags of [0, b.READ_METADATA | b.LIST, b.READ_METADATA | b.WRITE_METADATA, allPermissionBits & ~b.LIST]) {
      expect(given([created]).when(move({ parentFlags })).code).toBe('permission_denied');
    }
    expect(given([created]).when(move({ parentFlags: listAndWrite })).code).toBeNull();
    expect(given([created]).when(move({ flags: b.MANAGE })).code).toBe('not_found');
    expect(given([created]).when(move({ flags: 0, parentFlags: 0 }), as('u', true)).code).toBeNull();
  });

  it('checks If-Match like a change', () => {
    expect(given([created, renamed('Two', 2)]).when(move({ ifMatch: provenanceToken(id, 1) })).code).toBe('provenance_mismatch');
    expect(given([created, renamed('Two', 2)]).when(move({ ifMatch: provenanceToken(id, 2) })).events).toHaveLength(1);
  });

  it('never moves a root collection', () => {
    expect(given([userRoot]).when(move()).code).toBe('root_collection');
    expect(given([userRoot]).when(move(), as('u', true)).code).toBe('root_collection');
  });

  it('refuses a move into the collection itself or its subtree (collection_cycle)', () => {
    expect(given([created]).when(move({ parentId: id, parentAncestors: ['root'] })).code).toBe('collection_cycle');
    expect(given([created]).when(move({ parentId: 'child', parentAncestors: ['root', id] })).code).toBe('collection_cycle');
    expect(given([created]).when(move({ parentId: 'deep', parentAncestors: ['root', id, 'child', 'grandchild'] })).code).toBe('collection_cycle');
    expect(given([created]).when(move({ parentId: 'deep', parentAncestors: ['root', id] }), as('u', true)).code).toBe('collection_cycle');
  });

  it('moving under the same parent changes nothing', () => {
    expect(given([created]).when(move({ parentId: 'root', parentAncestors: [] })).events).toEqual([]);
  });

  it('answers not_found for a deleted collection', () => {
    expect(given([created, { type: 'CollectionDeleted', data: { id } }]).when(move()).code).toBe('not_found');
  });
});

describe('collection decider: delete', () => {
  it('deletes an empty collection with DELETE', () => {
    expect(given([created]).when(remove()).events).toEqual([{ type: 'CollectionDeleted', data: { id } }]);
    expect(given([created]).when(remove({ flags: b.READ_METADATA | b.DELETE })).code).toBeNull();
    expect(given([created]).when(remove({ flags: allPermissionBits & ~b.DELETE })).code).toBe('permission_denied');
    expect(given([created]).when(remove({ flags: b.DELETE })).code).toBe('not_found');
    expect(given([created]).when(remove({ flags: 0 }), as('u', true)).code).toBeNull();
  });

  it('never deletes a root collection (409 root_collection)', () => {
    expect(given([userRoot]).when(remove()).code).toBe('root_collection');
    expect(given([userRoot]).when(remove({ recursive: true, empty: false }), as('u', true)).code).toBe('root_collection');
  });

  it('refuses a non-empty collection unless recursive (409 collection_not_empty)', () => {
    expect(given([created]).when(remove({ empty: false })).code).toBe('collection_not_empty');
    expect(given([created]).when(remove({ empty: false }), as('u', true)).code).toBe('collection_not_empty');
    expect(given([created]).when(remove({ empty: false, recursive: true })).events).toEqual([{ type: 'CollectionDeleted', data: { id } }]);
    expect(given([created]).when(remove({ empty: true, recursive: true })).events).toHaveLength(1);
  });

  it('deletes the sub-collections of a recursive deletion without checks of their own (cascaded)', () => {
    expect(given([created]).when(remove({ cascaded: true, flags: 0, empty: false, recursive: true })).events).toEqual([{ type: 'CollectionDeleted', data: { id } }]);
  });

  it('answers not_found for a collection already deleted', () => {
    const deleted: CollectionEvent = { type: 'CollectionDeleted', data: { id } };
    expect(given([created, deleted]).when(remove()).code).toBe('not_found');
    expect(given([created, deleted]).when(remove({ cascaded: true })).code).toBe('not_found');
  });
});

describe('collection decider: permissions', () => {
  it('replaces the entries, normalized (ids lower-cased, one per subject, zero flags dropped, sorted), with the next revision', () => {
    const result = given([created]).when(
      replace([
        { subjectType: 'user', subjectId: 'B-USER', flags: 1 },
        { subjectType: 'public', subjectId: null, flags: 1 },
        { subjectType: 'group', subjectId: 'g1', flags: 0 },
        { subjectType: 'user', subjectId: 'a-user', flags: 65 },
        { subjectType: 'user', subjectId: 'b-user', flags: 3 },
      ]),
    );
    expect(result.events).toEqual([
      {
        type: 'CollectionPermissionsSet',
        data: {
          id,
          entries: [
            { subjectType: 'public', subjectId: null, flags: 1 },
            { subjectType: 'user', subjectId: 'a-user', flags: 65 },
            { subjectType: 'user', subjectId: 'b-user', flags: 3 },
          ],
          revision: 2,
        },
      },
    ]);
    // The same entries again change nothing; none at all clears them.
    expect(given([created, ...result.events]).when(replace([{ subjectType: 'user', subjectId: 'a-user', flags: 65 }, { subjectType: 'public', subjectId: null, flags: 1 }, { subjectType: 'user', subjectId: 'b-user', flags: 3 }])).events).toEqual([]);
    expect(given([created, ...result.events]).when(replace([])).events).toEqual([{ type: 'CollectionPermissionsSet', data: { id, entries: [], revision: 3 } }]);
    expect(given([created]).when(replace([])).events).toEqual([]);
  });

  it('sees the same entries as the same when they come back from the log with their keys reordered (jsonb)', () => {
    // jsonb orders keys by length, then bytes: flags, subjectId, subjectType.
    const stored = JSON.parse('{"flags": 65, "subjectId": "a-user", "subjectType": "user"}') as ReplaceCollectionPermissions['entries'][number];
    const fromLog: CollectionEvent = { type: 'CollectionPermissionsSet', data: { id, entries: [stored], revision: 2 } };
    expect(given([created, fromLog]).when(replace([{ subjectType: 'user', subjectId: 'a-user', flags: 65 }])).events).toEqual([]);
    expect(given([created, fromLog]).when(replace([{ subjectType: 'user', subjectId: 'a-user', flags: 64 | 1 | 2 }])).events).toHaveLength(1);
  });

  it('needs MANAGE; without READ_METADATA the collection is hidden', () => {
    const entries = [{ subjectType: 'public' as const, subjectId: null, flags: 1 }];
    expect(given([created]).when(replace(entries, allPermissionBits & ~b.MANAGE)).code).toBe('permission_denied');
    expect(given([created]).when(replace(entries, b.MANAGE)).code).toBe('not_found');
    expect(given([created]).when(replace(entries, b.READ_METADATA | b.MANAGE)).code).toBeNull();
    expect(given([created]).when(replace(entries, 0), as('u', true)).code).toBeNull();
  });

  it('refuses malformed entries', () => {
    expect(given([created]).when(replace([{ subjectType: 'robot' as 'user', subjectId: 'x', flags: 1 }])).code).toBe('invalid_subject_type');
    expect(given([created]).when(replace([{ subjectType: 'public', subjectId: 'x', flags: 1 }])).code).toBe('invalid_subject_id');
    expect(given([created]).when(replace([{ subjectType: 'user', subjectId: null, flags: 1 }])).code).toBe('invalid_subject_id');
    expect(given([created]).when(replace([{ subjectType: 'user', subjectId: 'x', flags: 512 }])).code).toBe('invalid_flags');
    expect(given([created]).when(replace([{ subjectType: 'user', subjectId: 'x', flags: -1 }])).code).toBe('invalid_flags');
    expect(given([created]).when(replace([{ subjectType: 'user', subjectId: 'x', flags: 1.5 }])).code).toBe('invalid_flags');
  });

  it('answers not_found for a deleted collection', () => {
    expect(given([created, { type: 'CollectionDeleted', data: { id } }]).when(replace([])).code).toBe('not_found');
  });
});
