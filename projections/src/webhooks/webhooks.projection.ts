import type { webhooks } from '@cairn/domain';
import type { Projection } from '../runner/projection.ts';
import { insert, remove, update } from '../runner/row-ops.ts';

type Event = webhooks.WebhookEvent;

const filterColumns = (filters: webhooks.WebhookFilters) => ({ collection_id: filters.collectionId, asset_id: filters.assetId, kinds: [...filters.kinds] });

export const webhooksProjection: Projection = {
  name: 'webhooks',
  version: 1,
  handles: ['WebhookCreated', 'WebhookChanged', 'WebhookPaused', 'WebhookResumed', 'WebhookDeleted'],
  tables: ['webhooks'],
  project(recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'WebhookCreated': {
        const d = event.data;
        return [
          insert(
            'webhooks',
            { id: d.id, owner_id: d.ownerId, url: d.url, ...filterColumns(d.filters), sealed_secret: d.sealedSecret, start_after: d.startAfter, status: 'active', paused_reason: null, paused_at: null, created_at: at, updated_at: at },
            { key: ['id'] },
          ),
        ];
      }
      case 'WebhookChanged': {
        const { url, filters, sealedSecret } = event.data.changes;
        return [update('webhooks', { id: event.data.id }, { url, ...(filters ? filterColumns(filters) : {}), sealed_secret: sealedSecret, updated_at: at })];
      }
      case 'WebhookPaused':
        return [update('webhooks', { id: event.data.id }, { status: 'paused', paused_reason: event.data.reason, paused_at: at, updated_at: at })];
      case 'WebhookResumed':
        return [update('webhooks', { id: event.data.id }, { status: 'active', paused_reason: null, paused_at: null, updated_at: at })];
      case 'WebhookDeleted':
        // Its delivery log and progress go with it: created and deleted again and again, a subscription leaves nothing behind.
        return [remove('webhooks', { id: event.data.id }), remove('webhook_deliveries', { webhook_id: event.data.id }), remove('webhook_progress', { webhook_id: event.data.id })];
      case 'WebhookReplayRequested':
        return [];
      default: {
        const _exhaustive: never = event;
        return [];
      }
    }
  },
};
