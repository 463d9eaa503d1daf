import type { Change, ChangeKind } from '@cairn/contract';
import { allPermissionBits, permissionBits } from '@cairn/domain';
import { encodePosition } from '@cairn/platform';
import type { GrantMap } from '@cairn/projections';
import type { BatchAccess } from './batch-access.ts';
import type { ChangeCandidate } from './change-candidates.ts';

/** Who reads the feed, as a batch is judged for them: their principals read at most a batch ago. */
export type ChangeReader = {
  readonly isSystemAdmin: boolean;
  readonly principals: readonly string[];
  /** Projects whose geographic restriction denies this reader: their assets are left out, as in the listings. */
  readonly deniedProjectIds?: ReadonlySet<string> | undefined;
};

export type ChangeFilters = {
  /** The collection's subtree: the collection, those under it, and the assets they hold (and their content, notes, relationships). */
  readonly collectionId?: string | undefined;
  readonly assetId?: string | undefined;
  readonly kinds?: readonly ChangeKind[] | undefined;
};

const read = permissionBits.READ_METADATA;

/** DECISIONS.md 2: the OR of the grants naming one of the reader's principals; every bit for a system administrator. */
export function flagsOf(grants: GrantMap | undefined, reader: ChangeReader): number {
  if (!grants) return 0;
  if (reader.isSystemAdmin) return allPermissionBits;
  let flags = 0;
  for (const key of reader.principals) flags |= grants[key] ?? 0;
  return flags;
}

function presentFields(candidate: ChangeCandidate, access: BatchAccess, reader: ChangeReader): Record<string, unknown> {
  const refs = candidate.collectionRefs;
  if (!refs) return { ...candidate.fields };
  const seen = (id: unknown) => typeof id === 'string' && (flagsOf(access.collections.get(id)?.grants, reader) & read) !== 0;
  const value = candidate.fields[refs.field];
  // A hidden collection's id is not told (docs/collections.md): left out of a list, null as a parent.
  return { ...candidate.fields, [refs.field]: Array.isArray(value) ? value.filter(seen) : seen(value) ? value : null };
}

/** Whether the reader may see this change now, by the access read for its batch. */
function visible(candidate: ChangeCandidate, access: BatchAccess, reader: ChangeReader, filters: ChangeFilters): boolean {
  const deletion = candidate.action === 'deleted';
  if (candidate.gate.on === 'asset') {
    const asset = access.assets.get(candidate.gate.id) ?? (deletion && candidate.kind === 'asset' ? access.deletedAssets.get(candidate.gate.id) : undefined);
    if (!asset) return false;
    // Content and notes need their own flag besides seeing the asset, as their routes do.
    const needed = read | candidate.gate.flag;
    if ((flagsOf(asset.grants, reader) & needed) !== needed) return false;
    if (asset.ownerType === 'project' && reader.deniedProjectIds?.has(asset.ownerId)) return false;
    if (filters.collectionId !== undefined && !asset.within.has(filters.collectionId)) return false;
  } else {
    const collection = access.collections.get(candidate.gate.id) ?? (deletion ? access.deletedCollections.get(candidate.gate.id) : undefined);
    if (!collection || (flagsOf(collection.grants, reader) & read) === 0) return false;
    if (filters.collectionId !== undefined && !collection.within.has(filters.collectionId)) return false;
  }
  // A relationship's other end, as the relationship reads judge it: readable, and not in a project whose restriction denies this reader.
  const removedTarget = candidate.kind === 'relationship' && deletion ? access.removedRelationshipTargets.get(candidate.id) : undefined;
  const others = candidate.alsoReadable ?? (candidate.kind === 'relationship' && deletion ? [removedTarget] : []);
  return others.every((id) => {
    const other = id === undefined ? undefined : access.assets.get(id);
    if (!other || (flagsOf(other.grants, reader) & read) === 0) return false;
    return !(other.ownerType === 'project' && reader.deniedProjectIds?.has(other.ownerId));
  });
}

function wanted(candidate: ChangeCandidate, filters: ChangeFilters, access: BatchAccess, reader: ChangeReader): boolean {
  if (filters.kinds && !filters.kinds.includes(candidate.kind)) return false;
  if (filters.assetId !== undefined && candidate.assetId !== filters.assetId) return false;
  // A subtree the reader may not see gives nothing, like a random id: what it holds must not tell it exists.
  if (filters.collectionId !== undefined && (flagsOf(access.collections.get(filters.collectionId)?.grants, reader) & read) === 0) return false;
  return true;
}

/** The changes of a batch this reader may see, in log order, each with only the fields they may read. */
export function deliverChanges(candidates: readonly ChangeCandidate[], access: BatchAccess, reader: ChangeReader, filters: ChangeFilters): Change[] {
  const changes: Change[] = [];
  for (const candidate of candidates) {
    if (!wanted(candidate, filters, access, reader) || !visible(candidate, access, reader, filters)) continue;
    changes.push({
      position: encodePosition(candidate.position),
      kind: candidate.kind,
      id: candidate.id,
      asset_id: candidate.assetId,
      action: candidate.action,
      fields: presentFields(candidate, access, reader),
      occurred_at: candidate.occurredAt,
    });
  }
  return changes;
}
