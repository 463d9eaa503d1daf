import type { CommandContext } from '../shared/command-context.ts';
import { assertNever, type Decider } from '../shared/decider.ts';
import { allPermissionBits, permissionBits, type PermissionName } from '../shared/permissions.ts';
import { effectiveFlags, entryGrants, ownerGrants, principal, subjectPrincipal, type AssetAuthority } from './access.ts';
import type { AssetCommand } from './commands.ts';
import { assetErrors } from './errors.ts';
import { ownerTypes, subjectTypes, type AssetDetails, type AssetEvent, type AssetId, type AssetOwner, type PermissionEntry } from './events.ts';
import { validDetails } from './limits.ts';
import { evolve, initialState, type AssetState } from './state.ts';
import { decideMigration } from './decide-migration.ts';

type ActiveAsset = Extract<AssetState, { status: 'active' }>;

export function decide(command: AssetCommand, state: AssetState, context: CommandContext): readonly AssetEvent[] {
  if (command.type === 'CreateAsset') {
    if (state.status !== 'absent') throw assetErrors.alreadyExists();
    requireOwnerStanding(command.owner, command.authority, context);
    if (command.collection && !context.actor.isSystemAdmin) {
      if ((command.collection.flags & permissionBits.WRITE_METADATA) === 0) throw assetErrors.collectionNotAllowed();
      // DECISIONS.md 2: a collection's entries flow to what it holds, so putting the new
      // asset there is managing it; before it enters, only ownership gives anything.
      const own = effectiveFlags([ownerGrants(command.owner)], { principals: command.authority.principals, inheritedFlags: 0 }, false);
      if ((own & permissionBits.MANAGE) === 0) throw assetErrors.placingNeedsManage();
    }
    const details = validDetails(command.details);
    return [{ type: 'AssetCreated', data: { id: command.id, createdAt: context.now, collectionId: command.collection?.id ?? null, ...details, ...command.owner } }];
  }
  const asset = activeAsset(state);
  const flags = flagsOf(asset, command.authority, context);
  const need = (name: PermissionName) => {
    if ((flags & permissionBits[name]) === 0) throw assetErrors.lacks(name);
  };
  const unlocked = () => {
    if (asset.lock) throw assetErrors.locked();
  };
  const id = command.id;
  switch (command.type) {
    case 'ChangeAsset': {
      // Fields need WRITE_METADATA; a PATCH that names only the new owner needs MANAGE alone.
      const detailsGiven = Object.values(command.changes).some((value) => value !== undefined);
      need(detailsGiven || !command.owner ? 'WRITE_METADATA' : 'MANAGE');
      unlocked();
      const events: AssetEvent[] = [];
      const changes = changedDetails(asset.details, validDetails(command.changes));
      if (Object.keys(changes).length > 0) events.push({ type: 'AssetUpdated', data: { id, changes } });
      const owner = command.owner;
      if (owner && (owner.ownerType !== asset.owner.ownerType || owner.ownerId !== asset.owner.ownerId)) {
        // Giving the asset away is managing it; the new owner must be one the caller could create for.
        need('MANAGE');
        requireOwnerStanding(owner, command.authority, context);
        events.push({ type: 'AssetOwnerChanged', data: { id, ...owner } });
      }
      return events;
    }
    case 'DeleteAsset':
      need('DELETE');
      unlocked();
      return [{ type: 'AssetDeleted', data: { id } }];
    case 'ReplaceAssetPermissions':
    case 'MergeAssetPermissions': {
      need('MANAGE');
      const given = validEntries(command.entries);
      const entries = command.type === 'ReplaceAssetPermissions' ? stored(given) : mergedEntries(asset.entries, given);
      if (sameEntries(entries, asset.entries)) return [];
      return [{ type: 'AssetPermissionsSet', data: { assetId: id, entries, via: command.type === 'ReplaceAssetPermissions' ? 'replace' : 'merge' } }];
    }
    case 'StarAsset':
    case 'UnstarAsset': {
      const userId = context.actor.userId;
      if (userId === null) throw assetErrors.signedInOnly();
      const starred = asset.stars.has(userId);
      // Idempotent: starring twice or unstarring an unstarred asset records nothing.
      if (command.type === 'StarAsset') return starred ? [] : [{ type: 'AssetStarred', data: { assetId: id, userId, assetCreatedAt: asset.createdAt } }];
      return starred ? [{ type: 'AssetUnstarred', data: { assetId: id, userId } }] : [];
    }
    case 'LockAsset': {
      need('MANAGE');
      if (!command.locked) return asset.lock ? [{ type: 'AssetUnlocked', data: { assetId: id, unlockedBy: context.actor.userId } }] : [];
      const reason = command.reason.trim();
      if (reason.length > 1000) throw assetErrors.invalid('reason', 'The reason may be at most 1000 characters.');
      if (asset.lock && asset.lock.reason === reason) return [];
      return [{ type: 'AssetLocked', data: { assetId: id, lockedBy: context.actor.userId, reason } }];
    }
    case 'AttachToCollection': {
      // Placing an asset in a collection is organizing it, not changing it: allowed while locked.
      // But the collection's entries (and its owner's flags) flow to the asset, so it is an
      // access decision: WRITE_METADATA on the collection and MANAGE on the asset (DECISIONS.md 2).
      if (!context.actor.isSystemAdmin && (command.collectionFlags & permissionBits.WRITE_METADATA) === 0) throw assetErrors.collectionNotAllowed();
      if ((flags & permissionBits.MANAGE) === 0) throw assetErrors.placingNeedsManage();
      if (asset.collections.includes(command.collectionId)) return [];
      return [{ type: 'AssetCollectionsChanged', data: { assetId: id, collectionIds: [...asset.collections, command.collectionId], added: command.collectionId, removed: null } }];
    }
    case 'DetachFromCollection': {
      // Taking an asset out only narrows who reaches it: the collection's organizers may, and
      // so may whoever manages the asset, so that no attachment is beyond its manager's undoing.
      const organizes = context.actor.isSystemAdmin || (command.collectionFlags & permissionBits.WRITE_METADATA) !== 0;
      if (!organizes && (flags & permissionBits.MANAGE) === 0) throw assetErrors.collectionNotAllowed();
      const holds = asset.collections.includes(command.collectionId);
      if (!holds) throw assetErrors.notInCollection();
      return [{ type: 'AssetCollectionsChanged', data: { assetId: id, collectionIds: asset.collections.filter((c) => c !== command.collectionId), added: null, removed: command.collectionId } }];
    }
    case 'StartAssetMigration':
    case 'RetryAssetMigration':
      need('WRITE_CONTENT');
      unlocked();
      return decideMigration(command, asset.migrations);
    case 'RunAssetMigration':
    case 'FailAssetMigration':
    case 'CompleteAssetMigration':
      return decideMigration(command, asset.migrations);
    default:
      return assertNever(command);
  }
}

function activeAsset(state: AssetState): ActiveAsset {
  if (state.status !== 'active') throw assetErrors.notFound();
  return state;
}

/** A caller who may not read the asset's metadata learns nothing about it: not found (DECISIONS.md 1). */
function flagsOf(asset: ActiveAsset, authority: AssetAuthority, context: CommandContext): number {
  const flags = effectiveFlags([ownerGrants(asset.owner), entryGrants(asset.entries)], authority, context.actor.isSystemAdmin);
  if ((flags & permissionBits.READ_METADATA) === 0) throw assetErrors.notFound();
  return flags;
}

/** Oneself; a project one is an admin or member of; an organization one belongs to; anyone for a system administrator. */
function requireOwnerStanding(owner: AssetOwner, authority: AssetAuthority, context: CommandContext): void {
  if (!(ownerTypes as readonly string[]).includes(owner.ownerType)) throw assetErrors.invalid('owner_type', 'The owner type is one of user, project, organization.');
  if (context.actor.isSystemAdmin) return;
  const has = (key: string) => authority.principals.includes(key);
  const allowed =
    owner.ownerType === 'user'
      ? owner.ownerId === context.actor.userId
      : owner.ownerType === 'project'
        ? has(principal.projectRole(owner.ownerId, 'admin')) || has(principal.projectRole(owner.ownerId, 'member'))
        : has(principal.organizationMember(owner.ownerId));
  if (!allowed) throw assetErrors.ownerNotAllowed();
}

function validEntries(entries: readonly PermissionEntry[]): PermissionEntry[] {
  const bySubject = new Map<string, PermissionEntry>();
  for (const entry of entries) {
    if (!(subjectTypes as readonly string[]).includes(entry.subjectType)) throw assetErrors.invalid('subject_type', 'The subject type is one of user, group, organization, project, public.');
    if ((entry.subjectType === 'public') !== (entry.subjectId === null)) throw assetErrors.invalid('subject_id', 'Every subject but public names an id; public names none.');
    if (!Number.isInteger(entry.flags) || entry.flags < 0 || (entry.flags & ~allPermissionBits) !== 0) throw assetErrors.invalid('flags', 'Flags are a sum of the bits of GET /api/permissions/flags/.');
    // One entry per subject: a later one in the same request wins.
    const subjectId = entry.subjectId?.toLowerCase() ?? null;
    bySubject.set(subjectPrincipal(entry.subjectType, subjectId), { subjectType: entry.subjectType, subjectId, flags: entry.flags });
  }
  return [...bySubject.values()];
}

/** The given entries win for their subjects; the others stay; flags 0 removes a subject. */
function mergedEntries(current: readonly PermissionEntry[], given: readonly PermissionEntry[]): PermissionEntry[] {
  const bySubject = new Map(current.map((e) => [subjectPrincipal(e.subjectType, e.subjectId), e]));
  for (const entry of given) bySubject.set(subjectPrincipal(entry.subjectType, entry.subjectId), entry);
  return stored([...bySubject.values()]);
}

/** An entry with no flags grants nothing: it is the absence of an entry. Sorted, so that equal sets compare equal. */
const stored = (entries: PermissionEntry[]) =>
  entries.filter((e) => e.flags !== 0).sort((a, b) => a.subjectType.localeCompare(b.subjectType) || (a.subjectId ?? '').localeCompare(b.subjectId ?? ''));

function sameEntries(a: readonly PermissionEntry[], b: readonly PermissionEntry[]): boolean {
  return a.length === b.length && a.every((e, i) => e.subjectType === b[i]?.subjectType && e.subjectId === b[i]?.subjectId && e.flags === b[i]?.flags);
}

function changedDetails(current: AssetDetails, requested: Partial<AssetDetails>): Partial<AssetDetails> {
  const changes: { -readonly [K in keyof AssetDetails]?: AssetDetails[K] } = {};
  for (const key of Object.keys(requested) as (keyof AssetDetails)[]) {
    const value = requested[key];
    if (value === undefined || JSON.stringify(value) === JSON.stringify(current[key])) continue;
    (changes as Record<string, unknown>)[key] = value;
  }
  return changes;
}

export const assetDecider: Decider<AssetCommand, AssetEvent, AssetState> = { initialState, evolve, decide };

export const assetStream = (id: AssetId | string) => `asset-${id}`;
