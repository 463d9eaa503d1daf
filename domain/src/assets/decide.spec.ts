import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../shared/command-context.ts';
import { givenFor } from '../shared/decider-spec.ts';
import { allPermissionBits, permissionBits as b } from '../shared/permissions.ts';
import { principal, type AssetAuthority } from './access.ts';
import type { AssetCommand, CreateAsset } from './commands.ts';
import { assetDecider } from './decide.ts';
import type { AssetDetails, AssetEvent, AssetId, AssetOwner, PermissionEntry } from './events.ts';
import { assetLimits } from './limits.ts';

const id = 'a1' as AssetId;
const owner = 'owner';
const stranger = 'stranger';
const project = 'p1';
const organization = 'o1';
const now = '2026-01-01T00:00:00.000Z';
const as = (userId: string | null, isSystemAdmin = false): CommandContext => ({ actor: { userId, isSystemAdmin }, now });
/** The principals a user has: everyone, themselves, and whatever else they are in. */
const authorityOf = (userId: string, ...more: string[]): AssetAuthority => ({ principals: [principal.everyone, principal.user(userId), ...more], inheritedFlags: 0 });

const details: AssetDetails = { title: 'Ice core', alias: '', description: '', recordType: 'dataset', tags: ['ice'], metadata: { depth: 1 } };
const mine: AssetOwner = { ownerType: 'user', ownerId: owner };

const create = (overrides: Partial<CreateAsset> = {}): CreateAsset => ({
  type: 'CreateAsset',
  id,
  authority: authorityOf(owner),
  details,
  owner: mine,
  collection: null,
  ...overrides,
});

const created: AssetEvent = { type: 'AssetCreated', data: { id, createdAt: now, collectionId: null, ...details, ...mine } };
const grant = (userId: string, flags: number): AssetEvent => ({ type: 'AssetPermissionsSet', data: { assetId: id, entries: [{ subjectType: 'user', subjectId: userId, flags }], via: 'replace' } });
const locked: AssetEvent = { type: 'AssetLocked', data: { assetId: id, lockedBy: owner, reason: 'frozen' } };

const given = givenFor(assetDecider, as(owner));

/** What a user holding exactly these flags (through a user entry) is answered. */
function asHolderOf(flags: number, command: (authority: AssetAuthority) => AssetCommand, extra: AssetEvent[] = []) {
  return given([created, grant(stranger, flags), ...extra]).when(command(authorityOf(stranger)), as(stranger));
}

describe('asset decider: create', () => {
  it('creates an asset for oneself, with its details trimmed and tags once each', () => {
    const result = given([]).when(create({ details: { ...details, title: '  Ice core ', tags: [' ice ', 'ice', 'core'] } }));
    expect(result.events).toEqual([{ type: 'AssetCreated', data: { id, createdAt: now, collectionId: null, ...details, tags: ['ice', 'core'], ...mine } }]);
    expect(given([created]).when(create()).code).toBe('already_exists');
  });

  it('lets a user create only for themselves', () => {
    expect(given([]).when(create({ owner: { ownerType: 'user', ownerId: stranger } })).code).toBe('permission_denied');
    expect(given([]).when(create({ owner: { ownerType: 'user', ownerId: stranger } }), as(owner, true)).code).toBeNull();
  });

  it('lets project admins and members create for the project, not its viewers', () => {
    const forProject = (...keys: string[]) => create({ owner: { ownerType: 'project', ownerId: project }, authority: authorityOf(owner, ...keys) });
    expect(given([]).when(forProject(principal.projectRole(project, 'admin'), principal.projectMember(project))).code).toBeNull();
    expect(given([]).when(forProject(principal.projectRole(project, 'member'), principal.projectMember(project))).code).toBeNull();
    expect(given([]).when(forProject(principal.projectRole(project, 'viewer'), principal.projectMember(project))).code).toBe('permission_denied');
    expect(given([]).when(forProject(principal.projectRole('other', 'admin'))).code).toBe('permission_denied');
    expect(given([]).when(forProject(), as(owner, true)).code).toBeNull();
  });

  it('lets members of an organization create for it', () => {
    const forOrganization = (...keys: string[]) => create({ owner: { ownerType: 'organization', ownerId: organization }, authority: authorityOf(owner, ...keys) });
    expect(given([]).when(forOrganization(principal.organizationMember(organization))).code).toBeNull();
    expect(given([]).when(forOrganization(principal.organizationMember('elsewhere'))).code).toBe('permission_denied');
    expect(given([]).when(forOrganization(), as(stranger, true)).code).toBeNull();
    const bogus = 'team' as unknown as 'user';
    expect(given([]).when(create({ owner: { ownerType: bogus, ownerId: owner } })).code).toBe('invalid_owner_type');
  });

  it('needs WRITE_METADATA on the collection it goes into', () => {
    const into = (flags: number) => create({ collection: { id: 'c1', flags } });
    expect(given([]).when(into(b.READ_METADATA | b.WRITE_METADATA)).events[0]).toMatchObject({ type: 'AssetCreated', data: { collectionId: 'c1' } });
    expect(given([]).when(into(b.READ_METADATA)).code).toBe('permission_denied');
    expect(given([]).when(into(0), as(owner, true)).code).toBeNull();
  });

  it('puts the new asset in a collection only for who would manage it: its owner, a project admin, not a project member', () => {
    const inProject = (...keys: string[]) =>
      create({ owner: { ownerType: 'project', ownerId: project }, authority: authorityOf(owner, ...keys), collection: { id: 'c1', flags: allPermissionBits } });
    expect(given([]).when(inProject(principal.projectRole(project, 'admin'), principal.projectMember(project))).code).toBeNull();
    const member = given([]).when(inProject(principal.projectRole(project, 'member'), principal.projectMember(project)));
    expect(member.code).toBe('permission_denied');
    expect(given([]).when(create({ owner: { ownerType: 'organization', ownerId: organization }, authority: authorityOf(owner, principal.organizationMember(organization)), collection: { id: 'c1', flags: 511 } })).code).toBe('permission_denied');
  });

  it('keeps the limits of the fields, even without HTTP in front', () => {
    const withDetails = (changes: Partial<AssetDetails>) => given([]).when(create({ details: { ...details, ...changes } })).code;
    expect(withDetails({ title: '   ' })).toBe('invalid_title');
    expect(withDetails({ title: 'x'.repeat(assetLimits.title) })).toBeNull();
    expect(withDetails({ title: 'x'.repeat(assetLimits.title + 1) })).toBe('invalid_title');
    expect(withDetails({ alias: 'x'.repeat(assetLimits.alias + 1) })).toBe('invalid_alias');
    expect(withDetails({ recordType: 'x'.repeat(assetLimits.recordType + 1) })).toBe('invalid_record_type');
    expect(withDetails({ tags: Array.from({ length: assetLimits.tagCount }, (_, i) => `t${i}`) })).toBeNull();
    expect(withDetails({ tags: Array.from({ length: assetLimits.tagCount + 1 }, (_, i) => `t${i}`) })).toBe('invalid_tags');
    // Duplicates count once.
    expect(withDetails({ tags: Array.from({ length: assetLimits.tagCount + 1 }, (_, i) => `t${i % 3}`) })).toBeNull();
    expect(withDetails({ tags: ['x'.repeat(assetLimits.tagLength + 1)] })).toBe('invalid_tags');
    expect(withDetails({ tags: ['  '] })).toBe('invalid_tags');
    // `{}` is one level deep, `{"n": {}}` two.
    const nested = (depth: number): Record<string, unknown> => (depth === 1 ? {} : { n: nested(depth - 1) });
    expect(withDetails({ metadata: nested(assetLimits.metadataDepth) as AssetDetails['metadata'] })).toBeNull();
    expect(withDetails({ metadata: nested(assetLimits.metadataDepth + 1) as AssetDetails['metadata'] })).toBe('invalid_metadata');
    expect(withDetails({ metadata: { list: [[[[[[[[[[1]]]]]]]]]] } })).toBe('invalid_metadata');
    expect(withDetails({ metadata: { big: 'x'.repeat(assetLimits.metadataBytes) } })).toBe('invalid_metadata');
    expect(withDetails({ metadata: { ['k'.repeat(assetLimits.metadataKeyLength + 1)]: 1 } })).toBe('invalid_metadata');
    expect(withDetails({ metadata: [1] as unknown as AssetDetails['metadata'] })).toBe('invalid_metadata');
  });
});

describe('asset decider: change and delete', () => {
  const change = (changes: Partial<AssetDetails>, ownerChange?: AssetOwner) => (authority: AssetAuthority): AssetCommand => ({ type: 'ChangeAsset', id, authority, changes, owner: ownerChange });

  it('records only the details that change', () => {
    expect(given([created]).when(change({ title: ' Ice core ', tags: ['ice'], metadata: { depth: 1 } })(authorityOf(owner))).events).toEqual([]);
    expect(given([created]).when(change({ title: 'Firn core', tags: ['ice'] })(authorityOf(owner))).events).toEqual([{ type: 'AssetUpdated', data: { id, changes: { title: 'Firn core' } } }]);
    expect(given([created]).when(change({ title: ' ' })(authorityOf(owner))).code).toBe('invalid_title');
  });

  it('needs WRITE_METADATA, and hides the asset from those who cannot read it', () => {
    expect(asHolderOf(b.READ_METADATA | b.WRITE_METADATA, change({ title: 'x' })).code).toBeNull();
    expect(asHolderOf(b.READ_METADATA | b.MANAGE | b.DELETE, change({ title: 'x' })).code).toBe('permission_denied');
    expect(asHolderOf(b.WRITE_METADATA, change({ title: 'x' })).code).toBe('not_found');
    expect(given([created]).when(change({ title: 'x' })(authorityOf(stranger)), as(stranger)).code).toBe('not_found');
    expect(given([created]).when(change({ title: 'x' })(authorityOf(stranger)), as(stranger, true)).code).toBeNull();
    expect(given([]).when(change({ title: 'x' })(authorityOf(owner))).code).toBe('not_found');
  });

  it('refuses changes while locked with asset_locked', () => {
    expect(given([created, locked]).when(change({ title: 'x' })(authorityOf(owner))).code).toBe('asset_locked');
    expect(given([created, locked]).when({ type: 'DeleteAsset', id, authority: authorityOf(owner) }).code).toBe('asset_locked');
    // Who may not write learns that first, not that the asset is locked.
    expect(asHolderOf(b.READ_METADATA, change({ title: 'x' }), [locked]).code).toBe('permission_denied');
  });

  it('gives the asset away only with MANAGE, to an owner the caller could create for', () => {
    const toProject: AssetOwner = { ownerType: 'project', ownerId: project };
    const toUser: AssetOwner = { ownerType: 'user', ownerId: stranger };
    const inProject = authorityOf(owner, principal.projectRole(project, 'member'));
    expect(given([created]).when(change({}, toProject)(inProject)).events).toEqual([{ type: 'AssetOwnerChanged', data: { id, ...toProject } }]);
    expect(given([created]).when(change({}, mine)(authorityOf(owner))).events).toEqual([]);
    expect(given([created]).when(change({}, toProject)(authorityOf(owner))).code).toBe('permission_denied');
    expect(given([created]).when(change({}, toUser)(authorityOf(owner))).code).toBe('permission_denied');
    expect(given([created]).when(change({}, toUser)(authorityOf(owner)), as(owner, true)).code).toBeNull();
    expect(asHolderOf(b.READ_METADATA | b.WRITE_METADATA, change({}, toUser)).code).toBe('permission_denied');
    expect(asHolderOf(b.READ_METADATA | b.WRITE_METADATA | b.MANAGE, change({}, toUser)).events).toEqual([{ type: 'AssetOwnerChanged', data: { id, ...toUser } }]);
    // Giving it away alone needs MANAGE alone; with fields, WRITE_METADATA too.
    expect(asHolderOf(b.READ_METADATA | b.MANAGE, change({}, toUser)).events).toEqual([{ type: 'AssetOwnerChanged', data: { id, ...toUser } }]);
    expect(asHolderOf(b.READ_METADATA | b.MANAGE, change({ title: 'x' }, toUser)).code).toBe('permission_denied');
    expect(asHolderOf(b.READ_METADATA, change({}, mine)).code).toBe('permission_denied');
    expect(asHolderOf(b.READ_METADATA | b.MANAGE, change({}, toUser), [locked]).code).toBe('asset_locked');
    // The project's admins now hold every bit, the former owner nothing.
    const given2 = given([created, { type: 'AssetOwnerChanged', data: { id, ...toProject } }]);
    expect(given2.when(change({ title: 'x' })(authorityOf(stranger, principal.projectRole(project, 'admin'))), as(stranger)).code).toBeNull();
    expect(given2.when(change({ title: 'x' })(authorityOf(owner))).code).toBe('not_found');
  });

  it('deletes with DELETE, once', () => {
    const remove = (authority: AssetAuthority): AssetCommand => ({ type: 'DeleteAsset', id, authority });
    const deleted: AssetEvent = { type: 'AssetDeleted', data: { id } };
    expect(given([created]).when(remove(authorityOf(owner))).events).toEqual([deleted]);
    expect(asHolderOf(b.READ_METADATA | b.DELETE, remove).events).toEqual([deleted]);
    expect(asHolderOf(b.READ_METADATA | b.WRITE_METADATA | b.MANAGE, remove).code).toBe('permission_denied');
    expect(given([created, deleted]).when(remove(authorityOf(owner))).code).toBe('not_found');
  });
});

describe('asset decider: permissions', () => {
  const user = (subjectId: string, flags: number): PermissionEntry => ({ subjectType: 'user', subjectId, flags });
  const replace = (entries: PermissionEntry[]) => (authority: AssetAuthority): AssetCommand => ({ type: 'ReplaceAssetPermissions', id, authority, entries });
  const merge = (entries: PermissionEntry[]) => (authority: AssetAuthority): AssetCommand => ({ type: 'MergeAssetPermissions', id, authority, entries });
  const set = (entries: PermissionEntry[], via: 'replace' | 'merge'): AssetEvent => ({ type: 'AssetPermissionsSet', data: { assetId: id, entries, via } });
  const everyone: PermissionEntry = { subjectType: 'public', subjectId: null, flags: b.READ_METADATA };
  const group: PermissionEntry = { subjectType: 'group', subjectId: 'g1', flags: 3 };

  it('replaces the whole set, sorted, one entry per subject (the last wins), without empty entries', () => {
    const result = given([created]).when(replace([user('u2', 1), everyone, user('u1', 5), group, user('u2', 17), user('u3', 0)])(authorityOf(owner)));
    expect(result.events).toEqual([set([group, everyone, user('u1', 5), user('u2', 17)], 'replace')]);
    const now = given([created, ...result.events]);
    expect(now.when(replace([user('u1', 5), user('u2', 17), everyone, group])(authorityOf(owner))).events).toEqual([]);
    expect(now.when(replace([])(authorityOf(owner))).events).toEqual([set([], 'replace')]);
    expect(given([created]).when(replace([])(authorityOf(owner))).events).toEqual([]);
  });

  it('merges: a given entry wins for its subject, flags 0 removes it, the others stay', () => {
    const before = given([created, set([group, user('u1', 5), user('u2', 17)], 'replace')]);
    const result = before.when(merge([user('u1', 1), user('u2', 0), everyone, user('u4', 0)])(authorityOf(owner)));
    expect(result.events).toEqual([set([group, everyone, user('u1', 1)], 'merge')]);
    expect(before.when(merge([user('u1', 5)])(authorityOf(owner))).events).toEqual([]);
    expect(before.when(merge([])(authorityOf(owner))).events).toEqual([]);
  });

  it('needs MANAGE to change permissions', () => {
    expect(asHolderOf(b.READ_METADATA | b.MANAGE, replace([user('u9', 1)])).events).toHaveLength(1);
    expect(asHolderOf(allPermissionBits & ~b.MANAGE, replace([user('u9', 1)])).code).toBe('permission_denied');
    expect(asHolderOf(allPermissionBits & ~b.MANAGE, merge([user('u9', 1)])).code).toBe('permission_denied');
    expect(asHolderOf(b.MANAGE, merge([user('u9', 1)])).code).toBe('not_found');
  });

  it('refuses malformed entries: public names no id, the others name one; known subject types; real flags', () => {
    const code = (entry: PermissionEntry) => given([created]).when(replace([entry])(authorityOf(owner))).code;
    expect(code({ subjectType: 'public', subjectId: 'x', flags: 1 })).toBe('invalid_subject_id');
    expect(code({ subjectType: 'user', subjectId: null, flags: 1 })).toBe('invalid_subject_id');
    expect(code({ subjectType: 'team' as unknown as 'user', subjectId: 'x', flags: 1 })).toBe('invalid_subject_type');
    expect(code(user('u1', 512))).toBe('invalid_flags');
    expect(code(user('u1', -1))).toBe('invalid_flags');
    expect(code(user('u1', 1.5))).toBe('invalid_flags');
  });

  it('keeps granting while locked', () => {
    expect(given([created, locked]).when(replace([user('u1', 1)])(authorityOf(owner))).events).toHaveLength(1);
  });
});

describe('asset decider: stars and locks', () => {
  const star = (authority: AssetAuthority): AssetCommand => ({ type: 'StarAsset', id, authority });
  const unstar = (authority: AssetAuthority): AssetCommand => ({ type: 'UnstarAsset', id, authority });
  const lock = (reason: string, isLocked = true) => (authority: AssetAuthority): AssetCommand => ({ type: 'LockAsset', id, authority, locked: isLocked, reason });

  it('stars per user, idempotently, for anyone who may read it, locked or not', () => {
    const starred: AssetEvent = { type: 'AssetStarred', data: { assetId: id, userId: stranger, assetCreatedAt: now } };
    expect(asHolderOf(b.READ_METADATA, star).events).toEqual([starred]);
    expect(asHolderOf(b.READ_METADATA, star, [starred]).events).toEqual([]);
    expect(asHolderOf(b.READ_METADATA, unstar, [starred]).events).toEqual([{ type: 'AssetUnstarred', data: { assetId: id, userId: stranger } }]);
    expect(asHolderOf(b.READ_METADATA, unstar).events).toEqual([]);
    expect(asHolderOf(b.READ_METADATA, star, [locked]).events).toEqual([starred]);
    expect(given([created]).when(star(authorityOf(stranger)), as(stranger)).code).toBe('not_found');
    // The owner's star is the owner's own.
    expect(given([created, starred]).when(star(authorityOf(owner))).events).toHaveLength(1);
    expect(given([created]).when(star(authorityOf(owner)), as(null, true)).code).toBe('permission_denied');
  });

  it('locks and unlocks with MANAGE; the same lock twice or an unlock of an unlocked asset records nothing', () => {
    expect(given([created]).when(lock(' frozen ')(authorityOf(owner))).events).toEqual([locked]);
    expect(given([created, locked]).when(lock('frozen')(authorityOf(owner))).events).toEqual([]);
    expect(given([created, locked]).when(lock('thawing soon')(authorityOf(owner))).events).toEqual([{ type: 'AssetLocked', data: { assetId: id, lockedBy: owner, reason: 'thawing soon' } }]);
    expect(given([created]).when(lock('', false)(authorityOf(owner))).events).toEqual([]);
    expect(given([created, locked]).when(lock('', false)(authorityOf(owner))).events).toEqual([{ type: 'AssetUnlocked', data: { assetId: id, unlockedBy: owner } }]);
    expect(given([created]).when(lock('x'.repeat(1001))(authorityOf(owner))).code).toBe('invalid_reason');
  });

  it('lets any MANAGE holder lock and unlock, and no one else', () => {
    expect(asHolderOf(b.READ_METADATA | b.MANAGE, lock('mine now')).events).toEqual([{ type: 'AssetLocked', data: { assetId: id, lockedBy: stranger, reason: 'mine now' } }]);
    expect(asHolderOf(b.READ_METADATA | b.MANAGE, lock('', false), [locked]).events).toEqual([{ type: 'AssetUnlocked', data: { assetId: id, unlockedBy: stranger } }]);
    expect(asHolderOf(allPermissionBits & ~b.MANAGE, lock('no')).code).toBe('permission_denied');
    expect(asHolderOf(allPermissionBits & ~b.MANAGE, lock('', false), [locked]).code).toBe('permission_denied');
    expect(given([created, locked]).when(lock('', false)(authorityOf(stranger)), as(stranger, true)).code).toBeNull();
  });
});

describe('asset decider: collections', () => {
  const attach = (collectionFlags: number) => (authority: AssetAuthority): AssetCommand => ({ type: 'AttachToCollection', id, authority, collectionId: 'c1', collectionFlags });
  const detach = (collectionFlags: number) => (authority: AssetAuthority): AssetCommand => ({ type: 'DetachFromCollection', id, authority, collectionId: 'c1', collectionFlags });
  const attached: AssetEvent = { type: 'AssetCollectionsChanged', data: { assetId: id, collectionIds: ['c1'], added: 'c1', removed: null } };

  it('attaches only for who manages the asset and organizes the collection (DECISIONS.md 2)', () => {
    expect(asHolderOf(b.READ_METADATA | b.MANAGE, attach(b.WRITE_METADATA)).events).toEqual([attached]);
    // Every flag but MANAGE on the asset, every flag on the collection: still no.
    expect(asHolderOf(allPermissionBits & ~b.MANAGE, attach(allPermissionBits)).code).toBe('permission_denied');
    expect(asHolderOf(b.READ_METADATA, attach(allPermissionBits)).code).toBe('permission_denied');
    expect(asHolderOf(b.READ_METADATA | b.MANAGE, attach(b.READ_METADATA | b.LIST)).code).toBe('permission_denied');
    expect(given([created]).when(attach(0)(authorityOf(stranger)), as(stranger, true)).events).toEqual([attached]);
    // What a collection already gives counts: MANAGE that reached the asset through one.
    expect(given([created]).when(attach(b.WRITE_METADATA)({ principals: [principal.everyone, principal.user(stranger)], inheritedFlags: b.READ_METADATA | b.MANAGE }), as(stranger)).events).toEqual([attached]);
    expect(asHolderOf(b.READ_METADATA | b.MANAGE, attach(b.WRITE_METADATA), [attached]).events).toEqual([]);
  });

  it("detaches for the collection's organizers and for the asset's managers", () => {
    const detached: AssetEvent = { type: 'AssetCollectionsChanged', data: { assetId: id, collectionIds: [], added: null, removed: 'c1' } };
    expect(asHolderOf(b.READ_METADATA, detach(b.WRITE_METADATA), [attached]).events).toEqual([detached]);
    expect(asHolderOf(b.READ_METADATA | b.MANAGE, detach(b.READ_METADATA), [attached]).events).toEqual([detached]);
    expect(asHolderOf(b.READ_METADATA, detach(b.READ_METADATA), [attached]).code).toBe('permission_denied');
    expect(asHolderOf(b.READ_METADATA | b.MANAGE, detach(b.WRITE_METADATA)).code).toBe('not_found');
  });
});
