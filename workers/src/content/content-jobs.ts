import { operatorActor, type CommandContext, type storage } from '@cairn/domain';
import type { CommandMetadata, GlobalPosition } from '@cairn/platform';
import { findUpload, listContents, listOpenUploads, type ContentRow, type UploadRow } from '@cairn/projections';
import type { JobHandlersOf } from '../registry.ts';
import { jobMetadata, type ContentDeps } from './content-deps.ts';
import { endUpload } from './end-upload.ts';
import { extractContent } from './extract-content.ts';
import { migrateAsset } from './migrate-asset.ts';
import { createLimiter } from './limiter.ts';
import { removeContent } from './remove-content.ts';

const jobContext = (): CommandContext => ({ actor: operatorActor, now: new Date().toISOString() });

export type ContentJobs = {
  readonly handlers: JobHandlersOf<'extract-metadata' | 'migrate-asset' | 'purge-asset-content' | 'expire-upload'>;
  /** The extract-metadata route: extracts now, as the caller. */
  extractNow(contentId: string, context: CommandContext, metadata: CommandMetadata): Promise<GlobalPosition | null>;
  /** The delete-content route: record, charge and bytes. */
  removeContent(content: ContentRow, context: CommandContext, metadata: Parameters<typeof removeContent>[3]): Promise<GlobalPosition | null>;
  /** The upload routes: abort an upload, or end one whose completion was refused. */
  endUpload(upload: UploadRow, reason: storage.UploadEndReason, context: CommandContext, metadata: CommandMetadata, options?: { assembled?: boolean }): Promise<GlobalPosition | null>;
};

export function createContentJobs(deps: ContentDeps): ContentJobs {
  // Each extraction is a worker thread: the synchronous route runs two at a time per process,
  // as the job runners do, so a burst of requests queues instead of starting a thread each.
  const extracting = createLimiter(2);
  return {
    handlers: {
      'extract-metadata': async ({ contentId }, run) => {
        if (!deps.extraction.enabled) return;
        await extractContent(deps, contentId, jobContext(), jobMetadata(run.id));
      },
      'migrate-asset': (payload, run) => migrateAsset(deps, payload, run.id, run),
      // A deleted asset's content goes with it: each record, its charge and its bytes; and its
      // open uploads, their parts and reservations, rather than at their expiry.
      'purge-asset-content': async ({ assetId }, run) => {
        for (const content of await listContents(deps.db, assetId)) await removeContent(deps, content, jobContext(), jobMetadata(run.id));
        for (const upload of await listOpenUploads(deps.db, assetId)) await endUpload(deps, upload, 'aborted', jobContext(), jobMetadata(run.id));
      },
      // Due at the upload's expiry (the outbox's run_after); its end removes the job, so one that runs finds it open.
      'expire-upload': async ({ uploadId, assetId }, run) => {
        const upload = await findUpload(deps.db, assetId, uploadId);
        if (upload?.status === 'open') await endUpload(deps, upload, 'expired', jobContext(), jobMetadata(run.id));
      },
    },
    extractNow: (contentId, context, metadata) => extracting(() => extractContent(deps, contentId, context, metadata)),
    removeContent: (content, context, metadata) => removeContent(deps, content, context, metadata),
    endUpload: (upload, reason, context, metadata, options) => endUpload(deps, upload, reason, context, metadata, options),
  };
}
