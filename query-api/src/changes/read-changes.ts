import type { Change } from '@cairn/contract';
import { comparePositions, decodePosition, type GlobalPosition, type RecordedEvent } from '@cairn/platform';
import { principalsOf } from '@cairn/projections';
import { batchAccess, type ChangeAccessDeps } from './batch-access.ts';
import { changeCandidate, changeEventTypes } from './change-candidates.ts';
import { deliverChanges, type ChangeFilters, type ChangeReader } from './deliver-changes.ts';

export type { ChangeFilters, ChangeReader } from './deliver-changes.ts';
export type ChangeFeedDeps = ChangeAccessDeps;

/** Who asks: their principals are read at the start of each page (a revoked membership counts at once). */
export type ChangeCaller = { readonly userId: string; readonly isSystemAdmin: boolean };

export type ReadChangesInput = {
  readonly caller: ChangeCaller;
  /** Exclusive; the start of the log when absent. */
  readonly after?: GlobalPosition | undefined;
  readonly limit: number;
  readonly filters?: ChangeFilters | undefined;
  /** Projects whose geographic restriction denies the caller (deniedProjectIds): their assets are left out. */
  readonly deniedProjectIds?: readonly string[] | undefined;
  /** The caller's principals, when read already (principalsOf): otherwise read here. */
  readonly principals?: readonly string[] | undefined;
  /** Events of the feed's types scanned per call at most (default 10,000): a caller who sees little never walks the whole log in one request. */
  readonly scanLimit?: number | undefined;
};

export type ChangesPage = {
  readonly changes: Change[];
  /** Where the next page starts: past every event scanned, even when none was the caller's. */
  readonly next: GlobalPosition;
  /** The log held more than was scanned: ask again at once. */
  readonly hasMore: boolean;
};

export const defaultScanLimit = 10_000;
const startOfLog: GlobalPosition = { major: 0n, minor: 0n };

/** Reads the feed's events after a position: the log read every reader of the feed shares. */
export async function readFeedLog(deps: ChangeFeedDeps, after: GlobalPosition, limit: number) {
  return deps.eventStore.readLog(after, limit, changeEventTypes);
}

/** A scanned batch of the log turned into candidates and the access that judges them, for any number of readers. */
export async function judgeableBatch(deps: ChangeFeedDeps, events: readonly RecordedEvent[], extraCollections: readonly string[] = []) {
  const candidates = events.flatMap((e) => changeCandidate(e) ?? []);
  return { candidates, access: candidates.length === 0 ? null : await batchAccess(deps, candidates, extraCollections) };
}

/**
 * The next page of changes the caller may see after `after` (docs/changes.md): the log is
 * read in batches, each batch judged against the read models as they are now (visibility
 * at delivery time), until the page is full, the log is read to its end, or `scanLimit`
 * events were scanned. `next` is the last change's position when the page filled up
 * mid-batch, and otherwise the position scanned to.
 */
export async function readChanges(deps: ChangeFeedDeps, input: ReadChangesInput): Promise<ChangesPage> {
  const limit = Math.max(1, input.limit);
  const filters = input.filters ?? {};
  const scanLimit = input.scanLimit ?? defaultScanLimit;
  const changes: Change[] = [];
  let position = input.after ?? startOfLog;
  let scanned = 0;
  const take = () => Math.max(1, Math.min(Math.max(limit, 500), scanLimit - scanned));
  // The caller's principals and the first batch of the log in one round trip's time.
  const [principals, first] = await Promise.all([input.principals ?? principalsOf(deps.db, input.caller.userId), readFeedLog(deps, position, take())]);
  const reader: ChangeReader = { isSystemAdmin: input.caller.isSystemAdmin, principals, deniedProjectIds: new Set(input.deniedProjectIds ?? []) };
  let read: typeof first | null = first;
  for (;;) {
    const page = read ?? (await readFeedLog(deps, position, take()));
    read = null;
    scanned += page.events.length;
    const batch = await judgeableBatch(deps, page.events, filters.collectionId ? [filters.collectionId] : []);
    const delivered = batch.access ? deliverChanges(batch.candidates, batch.access, reader, filters) : [];
    const room = limit - changes.length;
    if (delivered.length >= room) {
      changes.push(...delivered.slice(0, room));
      const last = changes.at(-1);
      const lastPosition = last ? decodePosition(last.position) : null;
      const filledMidBatch = delivered.length > room || page.full;
      return { changes, next: lastPosition && delivered.length > room ? lastPosition : page.through, hasMore: filledMidBatch };
    }
    changes.push(...delivered);
    if (comparePositions(page.through, position) > 0) position = page.through;
    if (!page.full || scanned >= scanLimit) return { changes, next: position, hasMore: page.full };
  }
}
