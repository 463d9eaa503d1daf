import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '@cairn/platform';
import type { AssetAccess, CollectionAccess } from '@cairn/projections';
import type { BatchAccess } from './batch-access.ts';
import { changeCandidate, type ChangeCandidate } from './change-candidates.ts';
import { deliverChanges, type ChangeReader } from './deliver-changes.ts';

const asset = 'a0000000-0000-4000-8000-000000000001';
const target = 'a0000000-0000-4000-8000-000000000002';
const shown = 'c0000000-0000-4000-8000-000000000001';
const hidden = 'c0000000-0000-4000-8000-000000000002';

let minor = 0n;
function event(type: string, data: unknown): RecordedEvent {
  minor += 1n;
  return {
    id: `e${minor}`,
    type,
    schemaVersion: 1,
    data,
    metadata: { actorId: null, requestId: null, correlationId: 'c', causationId: null, occurredAt: '2026-11-26T00:00:00.000Z' },
    streamId: 's',
    streamVersion: 1,
    position: { major: 1n, minor },
    recordedAt: '2026-11-26T00:00:00.000Z',
  };
}
const candidates = (...events: RecordedEvent[]): ChangeCandidate[] => events.flatMap((e) => changeCandidate(e) ?? []);

const assetAccess = (grants: Record<string, number>, within: string[] = []): AssetAccess => ({ ownerType: 'user', ownerId: 'u', grants, collectionIds: within, within: new Set(within) });
const collectionAccess = (grants: Record<string, number>, within: string[]): CollectionAccess => ({ grants, within: new Set(within) });
const access = (parts: Partial<BatchAccess>): BatchAccess => ({ assets: new Map(), collections: new Map(), deletedAssets: new Map(), deletedCollections: new Map(), removedRelationshipTargets: new Map(), ...parts });
const me: ChangeReader = { isSystemAdmin: false, principals: ['*', 'u:me'] };

describe('deliverChanges', () => {
  it('sends content and notes only with their own flag besides READ_METADATA', () => {
    const batch = candidates(
      event('AssetUpdated', { id: asset, changes: { title: 'T', recordType: 'x' } }),
      event('NoteAdded', { assetId: asset, noteId: 'n1', authorId: 'u', content: 'c' }),
      event('ContentRemoved', { id: 'k1', assetId: asset, repositoryId: 'r', key: 'k', allocationId: 'a', size: 1 }),
    );
    const readOnly = access({ assets: new Map([[asset, assetAccess({ 'u:me': 1 })]]) });
    expect(deliverChanges(batch, readOnly, me, {}).map((c) => [c.kind, c.fields])).toEqual([['asset', { title: 'T', record_type: 'x' }]]);
    const notes = access({ assets: new Map([[asset, assetAccess({ 'u:me': 1 | 16 })]]) });
    expect(deliverChanges(batch, notes, me, {}).map((c) => c.kind)).toEqual(['asset', 'note']);
    expect(deliverChanges(batch, access({}), me, {})).toEqual([]);
    expect(deliverChanges(batch, access({}), { ...me, isSystemAdmin: true }, {})).toEqual([]);
  });

  it('tells only the collections the reader may see, and a relationship only when its target is readable', () => {
    const batch = candidates(
      event('AssetCollectionsChanged', { assetId: asset, collectionIds: [shown, hidden], added: hidden, removed: null }),
      event('RelationshipAdded', { id: 'r1', fromAssetId: asset, toAssetId: target, relationshipType: 'Cites' }),
    );
    const seen = access({
      assets: new Map([[asset, assetAccess({ '*': 1 })]]),
      collections: new Map([
        [shown, collectionAccess({ 'u:me': 1 }, [shown])],
        [hidden, collectionAccess({ 'u:other': 511 }, [hidden])],
      ]),
    });
    expect(deliverChanges(batch, seen, me, {}).map((c) => [c.kind, c.action, c.fields])).toEqual([['asset', 'access_changed', { collection_ids: [shown] }]]);
    const withTarget = access({ ...seen, assets: new Map([...seen.assets, [target, assetAccess({ 'u:me': 1 })]]) });
    expect(deliverChanges(batch, withTarget, me, {}).map((c) => c.kind)).toEqual(['asset', 'relationship']);
  });

  it('tells of a relationship neither added nor removed when its target is hidden or in a project that denies the reader', () => {
    const batch = candidates(
      event('RelationshipAdded', { id: 'r1', fromAssetId: asset, toAssetId: target, relationshipType: 'Cites' }),
      event('RelationshipRemoved', { id: 'r1', fromAssetId: asset }),
    );
    const from = assetAccess({ 'u:me': 1 });
    const removed = new Map([['r1', target]]);
    const hiddenTarget = access({ assets: new Map([[asset, from], [target, assetAccess({ 'u:other': 1 })]]), removedRelationshipTargets: removed });
    expect(deliverChanges(batch, hiddenTarget, me, {})).toEqual([]);
    const restricted: AssetAccess = { ...assetAccess({ 'u:me': 1 }), ownerType: 'project', ownerId: 'p1' };
    const deniedTarget = access({ assets: new Map([[asset, from], [target, restricted]]), removedRelationshipTargets: removed });
    expect(deliverChanges(batch, deniedTarget, { ...me, deniedProjectIds: new Set(['p1']) }, {})).toEqual([]);
    expect(deliverChanges(batch, deniedTarget, me, {}).map((c) => c.action)).toEqual(['created', 'deleted']);
  });

  it('judges a deletion by the grants the resource had, and no other change of a resource that is gone', () => {
    const batch = candidates(event('AssetUpdated', { id: asset, changes: { title: 'T' } }), event('AssetDeleted', { id: asset }));
    const gone = access({ deletedAssets: new Map([[asset, assetAccess({ 'u:me': 1 })]]) });
    expect(deliverChanges(batch, gone, me, {}).map((c) => [c.action, c.fields])).toEqual([['deleted', {}]]);
    expect(deliverChanges(batch, gone, { ...me, principals: ['*'] }, {})).toEqual([]);
  });

  it('filters by kind, asset and subtree; a subtree the reader may not see gives nothing', () => {
    const batch = candidates(event('AssetUpdated', { id: asset, changes: { title: 'T' } }), event('CollectionUpdated', { id: shown, changes: { title: 'C' }, revision: 2 }));
    const both = access({
      assets: new Map([[asset, assetAccess({ 'u:me': 1 }, [shown])]]),
      collections: new Map([
        [shown, collectionAccess({ 'u:me': 1 }, [hidden, shown])],
        [hidden, collectionAccess({}, [hidden])],
      ]),
    });
    expect(deliverChanges(batch, both, me, { kinds: ['collection'] }).map((c) => c.id)).toEqual([shown]);
    expect(deliverChanges(batch, both, me, { assetId: asset }).map((c) => c.id)).toEqual([asset]);
    expect(deliverChanges(batch, both, me, { collectionId: shown }).map((c) => c.id)).toEqual([asset, shown]);
    expect(deliverChanges(batch, both, me, { collectionId: hidden })).toEqual([]);
  });
});
