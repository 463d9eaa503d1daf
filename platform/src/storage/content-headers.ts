import { storage } from '@cairn/domain';
import { create as contentDisposition } from 'content-disposition';

/**
 * RFC 6266: `attachment` with an ASCII fallback `filename` (characters outside printable
 * ASCII, quotes and backslashes replaced by `_`) and the exact name as
 * `filename*=UTF-8''...` (RFC 8187). Any stored name can be sent this way: a name outside
 * Latin-1 (€, emoji, U+2028) once made every download of its content fail (issue 23).
 */
export function attachmentHeader(filename: string): string {
  // Quotes and backslashes too: some clients read an escaped quote as the name's end.
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  try {
    return contentDisposition(filename, { fallback });
  } catch {
    // A name that is not well-formed UTF-16 (a lone surrogate) cannot be percent-encoded.
    return contentDisposition(fallback);
  }
}

/** The stored media type when it is one a header can carry; old records that are not are served as bytes. */
export function servedContentType(stored: string): string {
  try {
    return storage.checkContentType(stored);
  } catch {
    return 'application/octet-stream';
  }
}
