import type { storage } from '@cairn/domain';
import type { Projection } from '../runner/projection.ts';
import { insert, update } from '../runner/row-ops.ts';

/** Direct uploads of assets, open and ended (docs/storage.md "Direct uploads"). */
export const contentUploadsProjection: Projection = {
  name: 'content-uploads',
  version: 1,
  handles: [...(['UploadStarted', 'UploadCompleted', 'UploadAborted'] as const)],
  tables: ['content_uploads'],
  project(recorded) {
    const event = { type: recorded.type, data: recorded.data } as storage.UploadEvent;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'UploadStarted': {
        const d = event.data;
        return [
          insert(
            'content_uploads',
            {
              id: d.id,
              asset_id: d.assetId,
              repository_id: d.repositoryId,
              allocation_id: d.allocationId,
              key: d.key,
              filename: d.filename,
              content_type: d.contentType,
              size: d.size,
              sha256: d.sha256,
              part_size: d.partSize,
              part_count: d.partCount,
              storage_upload_id: d.storageUploadId,
              status: 'open',
              expires_at: d.expiresAt,
              created_at: at,
              updated_at: at,
            },
            { key: ['id'] },
          ),
        ];
      }
      case 'UploadCompleted':
        return [update('content_uploads', { id: event.data.id }, { status: 'completed', updated_at: at })];
      case 'UploadAborted':
        return [update('content_uploads', { id: event.data.id }, { status: 'aborted', end_reason: event.data.reason, updated_at: at })];
    }
  },
};
