import type { CommandContext } from '../shared/command-context.ts';
import { DomainError, conflict, forbidden, invalid, notFound } from '../shared/errors.ts';
import { assertNever, type Decider } from '../shared/decider.ts';
import { lackedPermissions, permissionBits } from '../shared/permissions.ts';
import { relationshipTypes, type RelationshipEvent, type RelationshipType } from './events.ts';

/** What the route read about the source (and the target) for this caller. */
export type RelationshipAccess = { readonly flags: number; readonly locked: boolean };

export type AddRelationship = {
  readonly type: 'AddRelationship';
  readonly id: string;
  readonly fromAssetId: string;
  readonly toAssetId: string;
  readonly relationshipType: string;
  readonly access: RelationshipAccess;
  /** Whether the caller may read the target's metadata: a hidden target is a missing one. */
  readonly targetReadable: boolean;
};
export type RemoveRelationship = { readonly type: 'RemoveRelationship'; readonly id: string; readonly fromAssetId: string; readonly access: RelationshipAccess };
export type RelationshipCommand = AddRelationship | RemoveRelationship;

export type RelationshipsState = { readonly links: ReadonlyMap<string, { readonly toAssetId: string; readonly relationshipType: RelationshipType }> };

export const relationshipErrors = {
  assetNotFound: () => notFound('not_found', 'Asset not found.'),
  targetNotFound: () => notFound('not_found', 'Asset not found.'),
  relationshipNotFound: () => notFound('not_found', 'Relationship not found.'),
  lacksWrite: () => forbidden('permission_denied', lackedPermissions(['WRITE_METADATA'], 'this asset')),
  locked: () => new DomainError('locked', 'asset_locked', 'The asset is locked; unlock it first.'),
  self: () => invalid('self_relationship', 'An asset cannot be related to itself.'),
  invalidType: () => invalid('invalid_relationship_type', `The relationship type is one of the DataCite relation types: ${relationshipTypes.join(', ')}.`),
  duplicate: () => conflict('duplicate_relationship', 'This relationship already exists.'),
};

function requireWrite(access: RelationshipAccess, context: CommandContext): void {
  if (context.actor.isSystemAdmin) return;
  if ((access.flags & permissionBits.READ_METADATA) === 0) throw relationshipErrors.assetNotFound();
  if ((access.flags & permissionBits.WRITE_METADATA) === 0) throw relationshipErrors.lacksWrite();
}

export function decideRelationships(command: RelationshipCommand, state: RelationshipsState, context: CommandContext): readonly RelationshipEvent[] {
  requireWrite(command.access, context);
  switch (command.type) {
    case 'AddRelationship': {
      if (!(relationshipTypes as readonly string[]).includes(command.relationshipType)) throw relationshipErrors.invalidType();
      const relationshipType = command.relationshipType as RelationshipType;
      if (command.toAssetId === command.fromAssetId) throw relationshipErrors.self();
      if (!command.targetReadable) throw relationshipErrors.targetNotFound();
      if (command.access.locked) throw relationshipErrors.locked();
      for (const link of state.links.values()) if (link.toAssetId === command.toAssetId && link.relationshipType === relationshipType) throw relationshipErrors.duplicate();
      return [{ type: 'RelationshipAdded', data: { id: command.id, fromAssetId: command.fromAssetId, toAssetId: command.toAssetId, relationshipType } }];
    }
    case 'RemoveRelationship':
      if (!state.links.has(command.id)) throw relationshipErrors.relationshipNotFound();
      if (command.access.locked) throw relationshipErrors.locked();
      return [{ type: 'RelationshipRemoved', data: { id: command.id, fromAssetId: command.fromAssetId } }];
    default:
      return assertNever(command);
  }
}

export function evolveRelationships(state: RelationshipsState, event: RelationshipEvent): RelationshipsState {
  const links = new Map(state.links);
  if (event.type === 'RelationshipAdded') links.set(event.data.id, { toAssetId: event.data.toAssetId, relationshipType: event.data.relationshipType });
  else links.delete(event.data.id);
  return { links };
}

export const relationshipDecider: Decider<RelationshipCommand, RelationshipEvent, RelationshipsState> = {
  initialState: { links: new Map() },
  evolve: evolveRelationships,
  decide: decideRelationships,
};

export const relationshipsStream = (fromAssetId: string) => `asset-relationships-${fromAssetId}`;
