import type { storage } from '@cairn/domain';
import { sql } from 'kysely';
import type { Projection } from '../runner/projection.ts';
import { custom, insert, remove, update } from '../runner/row-ops.ts';

type Event = storage.AllocationEvent | storage.DefaultAllocationChosen;

/**
 * Allocations with their usage (docs/storage.md). `version` counts the allocation stream's
 * events, so it equals the stream's version: charges are decided on this row and appended
 * with that version expected.
 */
export const allocationsProjection: Projection = {
  name: 'allocations',
  version: 1,
  handles: [...(['AllocationCreated', 'AllocationLimitChanged', 'AllocationDeleted', 'AllocationCharged', 'AllocationCredited', 'AllocationReserved', 'AllocationReleased'] as const), 'DefaultAllocationChosen'],
  tables: ['allocations'],
  project(recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'AllocationCreated': {
        const d = event.data;
        return [
          insert(
            'allocations',
            { id: d.id, owner_type: d.ownerType, owner_id: d.ownerId, repository_id: d.repositoryId, limit_bytes: d.limitBytes, version: 1, created_at: at, updated_at: at },
            { key: ['id'] },
          ),
        ];
      }
      case 'AllocationLimitChanged':
        return [update('allocations', { id: event.data.id }, { limit_bytes: event.data.limitBytes, updated_at: at }, { add: { version: 1 } })];
      case 'AllocationCharged':
        return [update('allocations', { id: event.data.id }, {}, { add: { used_bytes: event.data.bytes, content_count: 1, version: 1 } })];
      case 'AllocationCredited':
        return [update('allocations', { id: event.data.id }, {}, { add: { used_bytes: -event.data.bytes, content_count: -1, version: 1 } })];
      case 'AllocationReserved':
        return [update('allocations', { id: event.data.id }, {}, { add: { reserved_bytes: event.data.bytes, version: 1 } })];
      case 'AllocationReleased':
        return [update('allocations', { id: event.data.id }, {}, { add: { reserved_bytes: -event.data.bytes, version: 1 } })];
      case 'AllocationDeleted':
        return [remove('allocations', { id: event.data.id })];
      case 'DefaultAllocationChosen': {
        const d = event.data;
        // One statement: the owner's one default moves to the chosen allocation.
        return [
          custom(async (db) => {
            await db
              .updateTable('allocations')
              .set({ is_default: sql<boolean>`id = ${d.allocationId}`, updated_at: at })
              .where('owner_type', '=', d.ownerType)
              .where('owner_id', '=', d.ownerId)
              .where((w) => w.or([w('is_default', '=', true), w('id', '=', d.allocationId)]))
              .execute();
          }),
        ];
      }
    }
  },
};
