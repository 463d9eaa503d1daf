import type { storage } from '@cairn/domain';
import type { Projection } from '../runner/projection.ts';
import { insert, remove, update } from '../runner/row-ops.ts';

/** Content records of assets with their extracted metadata (interface 4.3, docs/storage.md). */
export const assetContentsProjection: Projection = {
  name: 'asset-contents',
  version: 1,
  handles: [...(['ContentAdded', 'ContentMetadataExtracted', 'ContentMoved', 'ContentRemoved'] as const)],
  tables: ['asset_contents'],
  project(recorded) {
    const event = { type: recorded.type, data: recorded.data } as storage.ContentEvent;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'ContentAdded': {
        const d = event.data;
        return [
          insert(
            'asset_contents',
            {
              id: d.id,
              asset_id: d.assetId,
              repository_id: d.repositoryId,
              allocation_id: d.allocationId,
              key: d.key,
              filename: d.filename,
              size: d.size,
              sha256: d.sha256,
              content_type: d.contentType,
              origin: d.origin,
              metadata: null,
              metadata_status: d.extractionQueued ? 'pending' : 'not_extracted',
              created_at: at,
              updated_at: at,
            },
            { key: ['id'] },
          ),
        ];
      }
      case 'ContentMetadataExtracted': {
        const d = event.data;
        return [update('asset_contents', { id: d.id }, { metadata: d.metadata, metadata_status: d.status, metadata_error: d.error, metadata_extracted_at: d.extractedAt, updated_at: at })];
      }
      case 'ContentMoved': {
        const { to } = event.data;
        return [update('asset_contents', { id: event.data.id }, { repository_id: to.repositoryId, key: to.key, allocation_id: to.allocationId, updated_at: at })];
      }
      case 'ContentRemoved':
        return [remove('asset_contents', { id: event.data.id })];
    }
  },
};
