import { randomFillSync } from 'node:crypto';

const pool = Buffer.alloc(16 * 256);
let offset = pool.length;

/**
 * A UUID of RFC 9562 version 7: 48 bits of Unix milliseconds, then 74 random bits. Rows
 * keyed by these land at the end of their indexes instead of on a random page, so a write
 * dirties the pages the previous writes dirtied: about a fifth of the WAL of a random
 * (version 4) id per asset create, from full-page images no longer written after each
 * checkpoint (docs/ids.md). Ids made within one millisecond are in no particular order.
 */
export function timeOrderedId(now = Date.now()): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + 16);
  offset += 16;
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
