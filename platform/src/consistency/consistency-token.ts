import type { GlobalPosition } from '../event-store/event-store.ts';

/**
 * What a consistency token names: the write's position in the log and, when the write went
 * to PostgreSQL, a WAL position at or past its commit record, which a standby must have
 * replayed before it may answer the writer's reads (docs/consistency.md, "Standbys").
 */
export type ConsistencyPoint = { readonly position: GlobalPosition; readonly walLsn?: bigint | undefined };

const part = '[0-9a-z]{1,14}';
const tokenPattern = new RegExp(`^(${part})\\.(${part})(?:\\.(${part}))?$`);
const base36 = (s: string) => [...s].reduce((n, c) => n * 36n + BigInt(parseInt(c, 36)), 0n);

/** `major.minor` (base 36), and `.lsn` when the WAL position is known. */
export function encodeConsistencyToken(point: ConsistencyPoint): string {
  const { major, minor } = point.position;
  const base = `${major.toString(36)}.${minor.toString(36)}`;
  return point.walLsn === undefined ? base : `${base}.${point.walLsn.toString(36)}`;
}

/** Tokens issued before the WAL position was added (two parts) are still accepted. */
export function decodeConsistencyToken(token: string): ConsistencyPoint | null {
  const match = tokenPattern.exec(token);
  if (!match) return null;
  const position = { major: base36(match[1] ?? ''), minor: base36(match[2] ?? '') };
  return match[3] === undefined ? { position } : { position, walLsn: base36(match[3]) };
}
