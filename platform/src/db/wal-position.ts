/**
 * A WAL position (PostgreSQL's pg_lsn, written `16/B374D848`) as a number: the high and
 * low 32 bits of the byte position in the write-ahead log.
 */
export function parseLsn(text: string): bigint | null {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim());
  if (!match) return null;
  return (BigInt(`0x${match[1] ?? '0'}`) << 32n) | BigInt(`0x${match[2] ?? '0'}`);
}

export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** A standby's WAL page and segment sizes (`wal_block_size`, `wal_segment_size`): the primary's. */
export type WalGeometry = { readonly blockSize: bigint; readonly segmentSize: bigint };

export const defaultWalGeometry: WalGeometry = { blockSize: 8192n, segmentSize: 16n * 1024n * 1024n };

/**
 * The replay position a standby must reach to have everything before `insertLsn`. The
 * primary's insert position right after a page header (24 bytes, 40 at a segment's start)
 * means the last record ended at the page boundary, and a standby's
 * `pg_last_wal_replay_lsn()` (the end of its last replayed record) stops there: without
 * this, a write whose commit record filled a page exactly would wait for the next write.
 */
export function replayTarget(insertLsn: bigint, geometry: WalGeometry = defaultWalGeometry): bigint {
  if (insertLsn % geometry.segmentSize === 40n) return insertLsn - 40n;
  if (insertLsn % geometry.blockSize === 24n) return insertLsn - 24n;
  return insertLsn;
}
