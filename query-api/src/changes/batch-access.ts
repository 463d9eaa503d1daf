import { assetRelationships, assets, collections } from '@cairn/domain';
import type { EventStore } from '@cairn/platform';
import { inheritedFrom, mergeGrants, resourceAccess, type AssetAccess, type CollectionAccess, type ReadDb, type ResourceAccess } from '@cairn/projections';
import type { ChangeCandidate } from './change-candidates.ts';

export type ChangeAccessDeps = { readonly db: ReadDb; readonly eventStore: EventStore };

/**
 * Who may see each resource of a batch, for every reader at once (docs/changes.md): the
 * read models' grants now; and, for a deletion of a resource no longer there, its grants as
 * they stood just before it was deleted (folded from its stream), so that the deletion
 * reaches those who could see what was deleted. Only deletions use those: other changes of
 * a resource deleted since are not delivered.
 */
export type BatchAccess = ResourceAccess & {
  readonly deletedAssets: ReadonlyMap<string, AssetAccess>;
  readonly deletedCollections: ReadonlyMap<string, CollectionAccess>;
  /** A removed relationship's target (its removal does not say it): the reader must see it, as for its creation. */
  readonly removedRelationshipTargets: ReadonlyMap<string, string>;
};

/** The targets of the relationships a batch removes, from their assets' relationship streams (one read per asset). */
async function removedTargets(deps: ChangeAccessDeps, candidates: readonly ChangeCandidate[]): Promise<Map<string, string>> {
  const byAsset = new Map<string, Set<string>>();
  for (const c of candidates) if (c.kind === 'relationship' && c.action === 'deleted' && c.assetId) byAsset.set(c.assetId, (byAsset.get(c.assetId) ?? new Set()).add(c.id));
  const targets = new Map<string, string>();
  for (const [assetId, ids] of byAsset) {
    for (const event of (await deps.eventStore.readStream(assetRelationships.relationshipsStream(assetId))).events) {
      const added = event as unknown as assetRelationships.RelationshipEvent;
      if (added.type === 'RelationshipAdded' && ids.has(added.data.id)) targets.set(added.data.id, added.data.toAssetId);
    }
  }
  return targets;
}

function foldAsset(events: readonly { type: string; data: unknown }[]) {
  let state: assets.AssetState = assets.initialState;
  for (const event of events) {
    if (event.type === 'AssetDeleted') break;
    state = assets.evolve(state, event as assets.AssetEvent);
  }
  return state.status === 'active' ? state : null;
}

function foldCollection(events: readonly { type: string; data: unknown }[]) {
  let state: collections.CollectionState = collections.initialState;
  for (const event of events) {
    if (event.type === 'CollectionDeleted') break;
    state = collections.evolve(state, event as collections.CollectionEvent);
  }
  return state.status === 'active' ? state : null;
}

async function deletedAsset(deps: ChangeAccessDeps, id: string): Promise<AssetAccess | null> {
  const state = foldAsset((await deps.eventStore.readStream(assets.assetStream(id))).events);
  if (!state) return null;
  // What flows to an asset from a collection is its entries (own and inherited), not its owner's grants (DECISIONS.md 2).
  const holders = (await Promise.all(state.collections.map((c) => inheritedFrom(deps.db, c)))).flatMap((h) => (h ? [h] : []));
  return {
    ownerType: state.owner.ownerType,
    ownerId: state.owner.ownerId,
    grants: mergeGrants([assets.ownerGrants(state.owner), assets.entryGrants(state.entries), ...holders.map((h) => h.grants)]),
    collectionIds: state.collections,
    within: new Set(holders.flatMap((h) => [...h.within])),
  };
}

async function deletedCollection(deps: ChangeAccessDeps, id: string): Promise<CollectionAccess | null> {
  const state = foldCollection((await deps.eventStore.readStream(collections.collectionStream(id))).events);
  if (!state) return null;
  const owner: assets.AssetOwner = state.ownerType === 'project' ? { ownerType: 'project', ownerId: state.ownerProjectId ?? '' } : { ownerType: 'user', ownerId: state.ownerUserId ?? '' };
  const parent = state.parentId ? await inheritedFrom(deps.db, state.parentId) : null;
  return {
    grants: mergeGrants([assets.ownerGrants(owner), assets.entryGrants(state.entries), ...(parent ? [parent.grants] : [])]),
    within: new Set([...(parent?.within ?? []), id]),
  };
}

/** The access of every resource the candidates need, plus `extraCollections` (readers' filters). */
export async function batchAccess(deps: ChangeAccessDeps, candidates: readonly ChangeCandidate[], extraCollections: readonly string[] = []): Promise<BatchAccess> {
  const assetIds = new Set<string>();
  const collectionIds = new Set<string>(extraCollections);
  for (const c of candidates) {
    (c.gate.on === 'asset' ? assetIds : collectionIds).add(c.gate.id);
    for (const id of c.alsoReadable ?? []) assetIds.add(id);
    if (c.collectionRefs) {
      const value = c.fields[c.collectionRefs.field];
      for (const id of Array.isArray(value) ? value : [value]) if (typeof id === 'string') collectionIds.add(id);
    }
  }
  const removedRelationshipTargets = await removedTargets(deps, candidates);
  for (const target of removedRelationshipTargets.values()) assetIds.add(target);
  const found = await resourceAccess(deps.db, [...assetIds], [...collectionIds]);
  const deletedAssets = new Map<string, AssetAccess>();
  const deletedCollections = new Map<string, CollectionAccess>();
  for (const c of candidates) {
    if (c.action !== 'deleted') continue;
    if (c.kind === 'asset' && !found.assets.has(c.id) && !deletedAssets.has(c.id)) {
      const access = await deletedAsset(deps, c.id);
      if (access) deletedAssets.set(c.id, access);
    } else if (c.kind === 'collection' && !found.collections.has(c.id) && !deletedCollections.has(c.id)) {
      const access = await deletedCollection(deps, c.id);
      if (access) deletedCollections.set(c.id, access);
    }
  }
  return { ...found, deletedAssets, deletedCollections, removedRelationshipTargets };
}
