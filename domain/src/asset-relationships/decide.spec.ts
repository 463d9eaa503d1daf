import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../shared/command-context.ts';
import { givenFor } from '../shared/decider-spec.ts';
import { allPermissionBits, permissionBits as b } from '../shared/permissions.ts';
import { relationshipDecider, type AddRelationship, type RelationshipAccess, type RemoveRelationship } from './decide.ts';
import { relationshipTypes, type RelationshipEvent } from './events.ts';

const from = 'a-from';
const to = 'a-to';
const now = '2026-01-01T00:00:00.000Z';
const as = (userId: string | null, isSystemAdmin = false): CommandContext => ({ actor: { userId, isSystemAdmin }, now });
const writer: RelationshipAccess = { flags: b.READ_METADATA | b.WRITE_METADATA, locked: false };

const link = (overrides: Partial<AddRelationship> = {}): AddRelationship => ({
  type: 'AddRelationship',
  id: 'r1',
  fromAssetId: from,
  toAssetId: to,
  relationshipType: 'References',
  access: writer,
  targetReadable: true,
  ...overrides,
});
const unlink = (overrides: Partial<RemoveRelationship> = {}): RemoveRelationship => ({ type: 'RemoveRelationship', id: 'r1', fromAssetId: from, access: writer, ...overrides });

const added = (id = 'r1', toAssetId = to, relationshipType: (typeof relationshipTypes)[number] = 'References'): RelationshipEvent => ({
  type: 'RelationshipAdded',
  data: { id, fromAssetId: from, toAssetId, relationshipType },
});
const removed = (id = 'r1'): RelationshipEvent => ({ type: 'RelationshipRemoved', data: { id, fromAssetId: from } });

const given = givenFor(relationshipDecider, as('someone'));

describe('relationship decider: add', () => {
  it('links the source to a readable target with a DataCite type', () => {
    expect(given([]).when(link()).events).toEqual([added()]);
    for (const type of relationshipTypes) expect(given([]).when(link({ relationshipType: type })).code).toBeNull();
  });

  it('refuses a type that is not a DataCite relation type', () => {
    expect(given([]).when(link({ relationshipType: 'references' })).code).toBe('invalid_relationship_type');
    expect(given([]).when(link({ relationshipType: 'LinksTo' })).code).toBe('invalid_relationship_type');
    expect(given([]).when(link({ relationshipType: '' })).code).toBe('invalid_relationship_type');
  });

  it('refuses a link to the source itself', () => {
    expect(given([]).when(link({ toAssetId: from })).code).toBe('self_relationship');
  });

  it('answers a target the caller may not read as a missing one', () => {
    expect(given([]).when(link({ targetReadable: false })).code).toBe('not_found');
    // Even when the source is locked, or the link would be a duplicate: nothing about the target leaks.
    expect(given([]).when(link({ targetReadable: false, access: { ...writer, locked: true } })).code).toBe('not_found');
    expect(given([added()]).when(link({ id: 'r2', targetReadable: false })).code).toBe('not_found');
  });

  it('refuses a locked source, but not for who lacks the right to write it', () => {
    expect(given([]).when(link({ access: { ...writer, locked: true } })).code).toBe('asset_locked');
    expect(given([]).when(link({ access: { flags: b.READ_METADATA, locked: true } })).code).toBe('permission_denied');
  });

  it('refuses an exact duplicate; another type between the same assets is allowed', () => {
    const history = [added()];
    expect(given(history).when(link({ id: 'r2' })).code).toBe('duplicate_relationship');
    expect(given(history).when(link({ id: 'r2', relationshipType: 'Cites' })).events).toEqual([added('r2', to, 'Cites')]);
    expect(given(history).when(link({ id: 'r2', toAssetId: 'a-third' })).events).toEqual([added('r2', 'a-third')]);
    expect(given([...history, added('r2', to, 'Cites')]).when(link({ id: 'r3', relationshipType: 'Cites' })).code).toBe('duplicate_relationship');
  });

  it('allows a removed relationship to be added again', () => {
    expect(given([added(), removed()]).when(link({ id: 'r2' })).events).toEqual([added('r2')]);
    expect(given([added(), removed(), added('r2')]).when(link({ id: 'r3' })).code).toBe('duplicate_relationship');
  });

  it('needs WRITE_METADATA on the source; without READ_METADATA the source is hidden', () => {
    expect(given([]).when(link({ access: { flags: b.READ_METADATA, locked: false } })).code).toBe('permission_denied');
    expect(given([]).when(link({ access: { flags: b.READ_METADATA | b.READ_NOTES | b.WRITE_NOTES | b.MANAGE | b.DELETE, locked: false } })).code).toBe('permission_denied');
    expect(given([]).when(link({ access: { flags: b.WRITE_METADATA, locked: false } })).code).toBe('not_found');
    expect(given([]).when(link({ access: { flags: allPermissionBits & ~b.READ_METADATA, locked: false } })).code).toBe('not_found');
    // The permission comes before the body: who may not write learns nothing of the target.
    expect(given([]).when(link({ access: { flags: b.READ_METADATA, locked: false }, targetReadable: false })).code).toBe('permission_denied');
    expect(given([]).when(link({ access: { flags: b.READ_METADATA, locked: false }, relationshipType: 'nope' })).code).toBe('permission_denied');
  });

  it('lets a system administrator link whatever the flags read', () => {
    expect(given([]).when(link({ access: { flags: 0, locked: false } }), as('root', true)).events).toEqual([added()]);
    expect(given([]).when(link({ access: { flags: 0, locked: true } }), as('root', true)).code).toBe('asset_locked');
  });
});

describe('relationship decider: remove', () => {
  it('removes an existing relationship', () => {
    expect(given([added()]).when(unlink()).events).toEqual([removed()]);
    expect(given([added(), added('r2', to, 'Cites')]).when(unlink({ id: 'r2' })).events).toEqual([removed('r2')]);
  });

  it('does not know an id that was never added, or was removed', () => {
    expect(given([]).when(unlink()).code).toBe('not_found');
    expect(given([added()]).when(unlink({ id: 'r2' })).code).toBe('not_found');
    expect(given([added(), removed()]).when(unlink()).code).toBe('not_found');
  });

  it('refuses while the source is locked', () => {
    expect(given([added()]).when(unlink({ access: { ...writer, locked: true } })).code).toBe('asset_locked');
    expect(given([added()]).when(unlink({ access: { flags: 0, locked: true } }), as('root', true)).code).toBe('asset_locked');
  });

  it('needs WRITE_METADATA on the source; without READ_METADATA the source is hidden', () => {
    expect(given([added()]).when(unlink({ access: { flags: b.READ_METADATA | b.MANAGE | b.DELETE, locked: false } })).code).toBe('permission_denied');
    expect(given([added()]).when(unlink({ access: { flags: b.WRITE_METADATA, locked: false } })).code).toBe('not_found');
    expect(given([added()]).when(unlink({ access: { flags: 0, locked: false } }), as('root', true)).events).toEqual([removed()]);
  });

  it('folds the history into the current links', () => {
    const { state } = given([added(), added('r2', 'a-third', 'Cites'), removed()]);
    expect([...state.links.entries()]).toEqual([['r2', { toAssetId: 'a-third', relationshipType: 'Cites' }]]);
  });
});
