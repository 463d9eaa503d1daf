import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import { MeasuringStream, type StoredObject } from '@cairn/platform';
import { readUpload, type TextFields, type UploadPart } from './multipart-upload.ts';

/**
 * What an upload was, for its Idempotency-Key (docs/idempotency.md): the text fields, the
 * file part's name and type, and the file's SHA-256 and size. Not the raw body: clients
 * choose a new multipart boundary for each attempt.
 */
export function uploadDigest(fields: TextFields, part: Pick<UploadPart, 'filename' | 'mimeType'>, object: StoredObject): string {
  const described = [fields['repository_id'] ?? '', fields['filename'] ?? '', fields['content_type'] ?? '', part.filename, part.mimeType, object.sha256, object.size];
  return createHash('sha256').update(JSON.stringify(described)).digest('base64url');
}

/** What a multipart record (no file part) was: its text fields. */
export function recordDigest(fields: TextFields): string {
  const described = ['record', fields['key'] ?? '', fields['repository_id'] ?? '', fields['filename'] ?? '', fields['content_type'] ?? ''];
  return createHash('sha256').update(JSON.stringify(described)).digest('base64url');
}

/** Reads a retried upload through, keeping nothing, to its digest. */
export const digestUpload = (req: Request): Promise<string> =>
  readUpload(req, {
    file: async (fields, part) => {
      const measuring = new MeasuringStream();
      await pipeline(part.stream, measuring, async function (source) {
        for await (const _ of source);
      });
      return uploadDigest(fields, part, { size: measuring.size, sha256: measuring.digest() });
    },
    record: async (fields) => recordDigest(fields),
  });
