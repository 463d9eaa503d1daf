import type { GlobalPosition } from '../event-store/event-store.ts';

/**
 * The WAL position the PostgreSQL event store read right after an append's commit, kept
 * beside the position object it returned. Positions pass through deciders, sorts and
 * handlers unchanged, so the token encoder finds it where the append left it without every
 * step in between carrying a second value; a position built anew (a read of the log, an
 * unchanged resource's last event) has none, and its token sends reads to the primary.
 */
const walOfPosition = new WeakMap<GlobalPosition, bigint>();

export function noteCommitWal(position: GlobalPosition, walLsn: bigint | null): GlobalPosition {
  if (walLsn !== null) walOfPosition.set(position, walLsn);
  return position;
}

export function commitWalOf(position: GlobalPosition): bigint | undefined {
  return walOfPosition.get(position);
}
