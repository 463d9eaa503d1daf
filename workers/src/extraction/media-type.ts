import { extname } from 'node:path';
import { fileTypeFromFile } from 'file-type';

export type ExtractionHints = { filename: string; declaredContentType: string | null };

/**
 * `magic`: the file's own bytes; `declared` / `extension`: the uploader's word, taken for
 * text formats only; `content`: nothing named a type and the bytes were sniffed for text.
 */
export type MediaTypeSource = 'magic' | 'declared' | 'extension' | 'content' | 'none';

/** `declared`: the declared content type, kept for content that turns out not to be text. */
export type DetectedMediaType = { mediaType: string | undefined; extension: string | undefined; source: MediaTypeSource; declared: string | undefined };

const textTypesByExtension: Record<string, string> = {
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  tab: 'text/tab-separated-values',
  txt: 'text/plain',
  text: 'text/plain',
  log: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  json: 'application/json',
  jsonl: 'application/x-ndjson',
  ndjson: 'application/x-ndjson',
  geojson: 'application/geo+json',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  html: 'text/html',
  htm: 'text/html',
};

const textApplicationTypes = new Set(['application/json', 'application/x-ndjson', 'application/geo+json', 'application/ld+json', 'application/xml', 'application/yaml', 'application/x-yaml', 'application/csv']);

export const tableTypes: Record<string, 'csv' | 'tsv'> = {
  'text/csv': 'csv',
  'application/csv': 'csv',
  'text/tab-separated-values': 'tsv',
};

/**
 * The media type from the file's magic bytes (file-type reads the first few KiB). Text
 * formats have no magic, so for them the declared content type or the filename's
 * extension is taken; a tabular type from either wins over a generic one (browsers declare
 * `.csv` uploads as `text/plain` or `application/vnd.ms-excel`). Undefined when nothing
 * is known: the caller then sniffs whether the content is text. A declared type is not
 * trusted for binary formats: their extractors run only on what the magic bytes confirm.
 */
export async function detectMediaType(filePath: string, hints: ExtractionHints): Promise<DetectedMediaType> {
  const extension = filenameExtension(hints.filename);
  const detected = await fileTypeFromFile(filePath);
  const declared = normalizeContentType(hints.declaredContentType);
  if (detected) return { mediaType: detected.mime, extension: detected.ext, source: 'magic', declared };

  const candidates: Array<{ mediaType: string; source: MediaTypeSource }> = [];
  if (declared && isTextType(declared)) candidates.push({ mediaType: declared, source: 'declared' });
  const byExtension = extension ? textTypesByExtension[extension] : undefined;
  if (byExtension) candidates.push({ mediaType: byExtension, source: 'extension' });
  const chosen = candidates.find((candidate) => tableTypes[candidate.mediaType] !== undefined) ?? candidates[0];
  return { mediaType: chosen?.mediaType, extension, source: chosen?.source ?? 'none', declared };
}

export function isTextType(mediaType: string): boolean {
  return mediaType.startsWith('text/') || textApplicationTypes.has(mediaType);
}

/** The bare type of a declared content type, or undefined when it says nothing (absent, malformed, octet-stream). */
function normalizeContentType(value: string | null): string | undefined {
  const type = value?.split(';')[0]?.trim().toLowerCase();
  if (!type || !/^[a-z0-9.+-]+\/[a-z0-9.+-]+$/.test(type)) return undefined;
  return type === 'application/octet-stream' || type === 'binary/octet-stream' ? undefined : type;
}

function filenameExtension(filename: string): string | undefined {
  const extension = extname(filename).slice(1).toLowerCase();
  return /^[a-z0-9]{1,16}$/.test(extension) ? extension : undefined;
}
