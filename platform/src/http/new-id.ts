import { createHash } from 'node:crypto';
import { timeOrderedId } from '../ids/time-ordered-id.ts';
import type { RequestContext } from './operation.ts';

/** RFC 9562 version 5 layout from a SHA-1 digest. */
function uuidV5(name: string): string {
  const bytes = createHash('sha1').update('cairn-idempotency:').update(name).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The id of a resource a command creates. Under an Idempotency-Key it is derived from the
 * key and its rank in the request, so a retried create names the same resource and its
 * stream, and cannot make a second one.
 */
export function newId(context: RequestContext): string {
  const request = context.idempotency;
  if (!request) return timeOrderedId();
  request.idsMade += 1;
  return uuidV5(`${request.key}:${request.idsMade}`);
}
