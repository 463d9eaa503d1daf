import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { storage, type CommandContext } from '@cairn/domain';
import { appendDecided, BlobNotFoundError, type CommandMetadata, type GlobalPosition } from '@cairn/platform';
import { findContentById } from '@cairn/projections';
import { extractMetadata, type ExtractionResult } from '../extraction/index.ts';
import type { ContentDeps } from './content-deps.ts';

/**
 * Extracts a content record's metadata and records it (ContentMetadataExtracted). The bytes
 * are copied to a private temporary file first: the extraction runs in a worker thread
 * bounded in time and memory, on a local file, whatever the repository's kind.
 * Null when the record is gone.
 */
export async function extractContent(deps: ContentDeps, contentId: string, context: CommandContext, metadata: CommandMetadata): Promise<GlobalPosition | null> {
  const row = await findContentById(deps.db, contentId);
  if (!row) return null;
  const store = await deps.stores.forRepository(row.repository_id);
  let result: ExtractionResult;
  const dir = await mkdtemp(path.join(tmpdir(), 'cairn-extract-'));
  try {
    const file = path.join(dir, randomUUID());
    try {
      if (!store) throw new BlobNotFoundError(row.key);
      await pipeline(await store.open(row.key), createWriteStream(file, { flags: 'wx', mode: 0o600 }));
      result = await extractMetadata(file, { filename: row.filename, declaredContentType: row.content_type }, { timeoutMs: deps.extraction.timeoutMs, maxMemoryMb: deps.extraction.memoryMb });
    } catch (error) {
      // The bytes are unreadable (gone, or the repository is down): a failed extraction, said so.
      if (!(error instanceof BlobNotFoundError)) throw error;
      result = { status: 'failed', error: 'The content’s bytes are not in its repository.', metadata: {} };
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const event: storage.ContentMetadataExtracted = {
    type: 'ContentMetadataExtracted',
    data: {
      id: row.id,
      assetId: row.asset_id,
      status: result.status,
      metadata: result.metadata,
      error: result.status === 'failed' ? result.error : null,
      extractedAt: context.now,
    },
  };
  return appendDecided(deps.eventStore, [{ streamId: storage.contentStream(row.id), events: [event], expectedVersion: 'any' }], context, metadata);
}
