import type { assetRelationships, assets } from '@cairn/domain';
import type { Projection } from '../runner/projection.ts';
import { insert, remove } from '../runner/row-ops.ts';

type Event = assetRelationships.RelationshipEvent | assets.AssetDeleted;

/**
 * Relationships between assets; a deleted asset's disappear from both ends. Rows of one
 * stream are removed by events of another (the deletion of the target): `serialized`.
 */
export const assetRelationshipsProjection: Projection = {
  name: 'asset-relationships',
  version: 1,
  serialized: true,
  handles: ['RelationshipAdded', 'RelationshipRemoved', 'AssetDeleted'],
  tables: ['asset_relationships'],
  project(recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'RelationshipAdded': {
        const d = event.data;
        return [
          insert(
            'asset_relationships',
            { id: d.id, from_asset_id: d.fromAssetId, to_asset_id: d.toAssetId, relationship_type: d.relationshipType, created_by: recorded.metadata.actorId, created_at: at },
            { key: ['id'] },
          ),
        ];
      }
      case 'RelationshipRemoved':
        return [remove('asset_relationships', { id: event.data.id })];
      case 'AssetDeleted':
        return [remove('asset_relationships', { from_asset_id: event.data.id }), remove('asset_relationships', { to_asset_id: event.data.id })];
    }
  },
};
