import type { assets, storage, webhooks } from '@cairn/domain';
import type { Projection } from '../runner/projection.ts';
import { insert, remove } from '../runner/row-ops.ts';

type Event = storage.ContentAdded | storage.ContentMetadataExtracted | storage.ContentRemoved | storage.UploadEvent | assets.AssetMigrationEvent | assets.AssetDeleted | webhooks.WebhookReplayRequested | webhooks.WebhookDeleted;

/** The jobs of docs/jobs.md, by name, with their payloads. */
export const jobNames = { extractMetadata: 'extract-metadata', migrateAsset: 'migrate-asset', purgeAssetContent: 'purge-asset-content', expireUpload: 'expire-upload', replayWebhook: 'webhook-replay' } as const;

/**
 * The outbox (docs/jobs.md): an event that calls for background work records its job here,
 * in the append's own transaction; the relay hands it to BullMQ (or runs it here) after
 * commit. The event that ends the work removes the job, so a rebuild keeps exactly the
 * jobs whose work the log does not show done. Job ids are deterministic.
 */
export const jobOutboxProjection: Projection = {
  name: 'job-outbox',
  // Still 1: the webhook events it came to handle are newer than every log it was built from.
  version: 1,
  handles: ['ContentAdded', 'ContentMetadataExtracted', 'ContentRemoved', 'AssetMigrationStarted', 'AssetMigrationRetried', 'AssetMigrationFailed', 'AssetMigrationSucceeded', 'AssetDeleted', 'UploadStarted', 'UploadCompleted', 'UploadAborted', 'WebhookReplayRequested', 'WebhookDeleted'],
  tables: ['job_outbox'],
  // Its runner claims, delays and deletes rows: the live table is the queue's state, not only the log's.
  verifiable: false,
  project(recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'ContentAdded': {
        const d = event.data;
        if (!d.extractionQueued) return [];
        return [insert('job_outbox', { id: `${jobNames.extractMetadata}.${d.id}`, name: jobNames.extractMetadata, payload: { contentId: d.id, assetId: d.assetId }, subject_id: d.id, created_at: at }, { key: ['id'] })];
      }
      case 'ContentMetadataExtracted':
        return [remove('job_outbox', { subject_id: event.data.id })];
      case 'ContentRemoved':
        return [remove('job_outbox', { subject_id: event.data.id })];
      case 'AssetMigrationStarted':
      case 'AssetMigrationRetried': {
        const { assetId, migrationId } = event.data;
        const run = event.type === 'AssetMigrationRetried' ? event.data.retry : 0;
        return [
          insert('job_outbox', { id: `${jobNames.migrateAsset}.${migrationId}.${run}`, name: jobNames.migrateAsset, payload: { assetId, migrationId }, subject_id: migrationId, created_at: at }, { key: ['id'] }),
        ];
      }
      case 'AssetMigrationFailed':
        return event.data.retrying ? [] : [remove('job_outbox', { subject_id: event.data.migrationId })];
      case 'AssetMigrationSucceeded':
        return [remove('job_outbox', { subject_id: event.data.migrationId })];
      case 'AssetMigrationRunning':
        return [];
      // An abandoned upload is cleaned when it expires: the job is due then, and the upload's end removes it.
      case 'UploadStarted': {
        const d = event.data;
        return [insert('job_outbox', { id: `${jobNames.expireUpload}.${d.id}`, name: jobNames.expireUpload, payload: { uploadId: d.id, assetId: d.assetId }, subject_id: d.id, created_at: at, run_after: d.expiresAt }, { key: ['id'] })];
      }
      case 'UploadCompleted':
      case 'UploadAborted':
        return [remove('job_outbox', { subject_id: event.data.id })];
      case 'AssetDeleted': {
        const assetId = event.data.id;
        return [insert('job_outbox', { id: `${jobNames.purgeAssetContent}.${assetId}`, name: jobNames.purgeAssetContent, payload: { assetId }, subject_id: assetId, created_at: at }, { key: ['id'] })];
      }
      // The subscription's scheduled deliveries (webhook-deliver, subject: the webhook) and replays go with it.
      case 'WebhookReplayRequested': {
        const { id, deliveryId, replayId } = event.data;
        return [insert('job_outbox', { id: `${jobNames.replayWebhook}.${replayId}`, name: jobNames.replayWebhook, payload: { webhookId: id, deliveryId, replayId }, subject_id: id, created_at: at }, { key: ['id'] })];
      }
      case 'WebhookDeleted':
        return [remove('job_outbox', { subject_id: event.data.id })];
    }
  },
};
