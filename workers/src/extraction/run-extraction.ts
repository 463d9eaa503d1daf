import { stat } from 'node:fs/promises';
import type { ExtractionResult } from './extract-metadata.ts';
import type { JsonValue } from './json-values.ts';
import { detectMediaType, isTextType, tableTypes, type ExtractionHints } from './media-type.ts';

export type ExtractionInput = {
  filePath: string;
  hints: ExtractionHints;
  /** Bytes that a streaming count may read. */
  maxBytesRead: number;
  /** Bytes that a parser needing the whole file (PDF) may read into memory. */
  maxBytesInMemory: number;
};

/**
 * Runs inside the extraction worker: detects the media type, then runs the one extractor
 * that fits. Each extractor module is imported only when its format comes up, which keeps
 * a worker's start-up and heap small. `onProgress` receives the metadata found so far
 * after each step, so that a worker that is stopped still leaves what it had found.
 */
export async function runExtraction(input: ExtractionInput, onProgress: (metadata: Record<string, JsonValue>) => void): Promise<ExtractionResult> {
  const metadata: Record<string, JsonValue> = {};
  let step = 'reading the file';
  try {
    const info = await stat(input.filePath);
    if (!info.isFile()) return { status: 'failed', error: 'not a regular file', metadata };
    const size = info.size;
    metadata.size_bytes = size;

    step = 'media type detection';
    const detected = await detectMediaType(input.filePath, input.hints);
    if (detected.mediaType) metadata.media_type = detected.mediaType;
    if (detected.extension) metadata.extension = detected.extension;
    metadata.media_type_source = detected.source;
    onProgress(metadata);

    const mediaType = detected.mediaType;
    const table = mediaType ? tableTypes[mediaType] : undefined;
    if (mediaType?.startsWith('image/')) {
      step = 'image extraction';
      const { extractImage } = await import('./image.extractor.ts');
      metadata.image = await extractImage(input.filePath);
    } else if (mediaType === 'application/pdf') {
      step = 'pdf extraction';
      const { extractPdf } = await import('./pdf.extractor.ts');
      metadata.pdf = await extractPdf(input.filePath, size, input.maxBytesInMemory);
    } else if (mediaType?.startsWith('audio/') || mediaType?.startsWith('video/')) {
      const kind = mediaType.startsWith('audio/') ? 'audio' : 'video';
      step = `${kind} extraction`;
      const { extractMedia } = await import('./media.extractor.ts');
      metadata[kind] = await extractMedia(input.filePath, size, input.maxBytesRead, kind);
    } else if (table) {
      step = `${table} extraction`;
      const { extractTable } = await import('./table.extractor.ts');
      metadata.table = await extractTable(input.filePath, size, input.maxBytesRead, table, (partial) => {
        metadata.table = partial;
      });
    } else if (mediaType === undefined || isTextType(mediaType)) {
      step = 'text extraction';
      const { extractText } = await import('./text.extractor.ts');
      const text = await extractText(input.filePath, size, input.maxBytesRead);
      metadata.text = text;
      if (mediaType === undefined) {
        // No magic and no text type named: text content is text/plain; opaque bytes keep the
        // declared type if there is one (a format file-type does not know, or a damaged file).
        const binary = text.encoding === 'binary';
        metadata.media_type = binary ? (detected.declared ?? 'application/octet-stream') : 'text/plain';
        metadata.media_type_source = binary && detected.declared ? 'declared' : 'content';
      }
    }
    if (Object.values(metadata).some((section) => isTruncated(section))) metadata.truncated = true;
    return { status: 'succeeded', metadata };
  } catch (error) {
    return { status: 'failed', error: `${step} failed: ${messageOf(error)}`, metadata };
  }
}

function isTruncated(section: JsonValue): boolean {
  return typeof section === 'object' && section !== null && !Array.isArray(section) && section.truncated === true;
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 500 ? `${message.slice(0, 500)}…` : message;
}
