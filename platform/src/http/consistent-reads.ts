import type { Request } from 'express';
import { decodeConsistencyToken, type ConsistencyPoint } from '../consistency/consistency-token.ts';
import type { ConsistencyWaiter } from '../consistency/consistency-waiter.ts';
import type { ReadTarget, StandbyRouter } from '../db/standby-router.ts';
import { comparePositions, startOfLog, type GlobalPosition } from '../event-store/event-store.ts';
import { headPositionSql } from '../event-store/postgres-event-store.ts';
import { readsFromStandbys } from './documented-answers.ts';
import { httpErrors } from './http-error.ts';
import type { OperationContract } from './operation.ts';

export const consistencyHeader = 'X-Consistency-Token';

export type ConsistentReadOptions = {
  readonly waiter: ConsistencyWaiter;
  readonly consistencyTimeoutMs: number;
  /** The log's newest committed position (EventStore.headPosition); absent: no token is refused as beyond it. */
  readonly headPosition?: (() => Promise<GlobalPosition>) | undefined;
  readonly standbys?: { readonly router: StandbyRouter; readonly waitMs: number } | undefined;
};

const notIssued = (why?: string) =>
  httpErrors.badRequest('invalid_consistency_token', why ? `The ${consistencyHeader} header ${why}; it is not a token this service issued.` : `The ${consistencyHeader} header is not a token this service issued.`);

/**
 * DECISIONS.md 5 for one process: a request's consistency token is checked and waited for,
 * and a read of read models is given its server (docs/consistency.md, "Standbys").
 */
export function consistentReads(options: ConsistentReadOptions) {
  // The newest position known to be in the log (read from it, or written here), per server:
  // tokens at or below it need no look-up; the head is read once for a token beyond it.
  const knownHeads = new Map<string, GlobalPosition>();
  const note = (server: string, position: GlobalPosition) => {
    if (comparePositions(position, knownHeads.get(server) ?? startOfLog) > 0) knownHeads.set(server, position);
  };
  const beyondHead = async (server: string, position: GlobalPosition, readHead: () => Promise<GlobalPosition>) => {
    if (comparePositions(position, knownHeads.get(server) ?? startOfLog) <= 0) return false;
    note(server, await readHead());
    return comparePositions(position, knownHeads.get(server) ?? startOfLog) > 0;
  };
  const standbyHead = async (target: ReadTarget): Promise<GlobalPosition> => {
    const { rows } = await target.pools.plain.query<{ xid: string; position: string }>(headPositionSql);
    const row = rows[0];
    return row ? { major: BigInt(row.xid), minor: BigInt(row.position) } : startOfLog;
  };

  /**
   * On the primary, as without standbys: a token beyond the log's head is refused at once
   * (a write commits before its token is answered, so it would be waited for in vain:
   * docs/http.md); then the read models it needs are waited for.
   */
  const waitOnPrimary = async (contract: OperationContract, point: ConsistencyPoint) => {
    if (options.headPosition && (await beyondHead('primary', point.position, options.headPosition))) throw notIssued('names a position beyond the end of the log');
    const ok = await options.waiter.waitFor(point.position, contract.readModels, options.consistencyTimeoutMs);
    if (!ok) throw httpErrors.unavailable('consistency_timeout', 'The read models have not yet caught up with your write; retry shortly.', 1);
  };

  return {
    /** A position this process wrote: in the log. */
    noteWritten: (position: GlobalPosition) => note('primary', position),

    /**
     * Checks and waits for the request's token, and answers where its reads go: null for
     * the primary without routing (no standbys, or an operation that reads no read model).
     * Without a token, the next standby in rotation. With one whose WAL position the read
     * models' own commit had (inline), a standby that has replayed it, waited for a moment:
     * the event the token names is then on that standby, so the token is checked against the
     * standby's head, and the primary is not asked at all. Otherwise (a token of the old form
     * or of EventStoreDB, async read models) the primary's checks and wait, then a standby
     * that has replayed the primary's position read after them: past every commit the read
     * depends on. Past the wait for a standby, the primary answers.
     */
    async targetFor(req: Request, contract: OperationContract): Promise<ReadTarget | null> {
      const header = req.headers[consistencyHeader.toLowerCase()];
      const point = header === undefined ? null : typeof header === 'string' ? decodeConsistencyToken(header.trim()) : null;
      if (header !== undefined && !point) throw notIssued();
      const standbys = options.standbys && readsFromStandbys(contract) ? options.standbys : undefined;
      if (!point) return standbys ? standbys.router.pick() : null;
      if (!standbys) {
        await waitOnPrimary(contract, point);
        return null;
      }
      const { router, waitMs } = standbys;
      const inline = contract.readModels.every((name) => options.waiter.isInline(name));
      if (inline && point.walLsn !== undefined) {
        const target = await router.pickReplayed(point.walLsn, waitMs);
        if (target.standby) {
          let beyond: boolean;
          try {
            beyond = await beyondHead(target.name, point.position, () => standbyHead(target));
          } catch (error) {
            // The standby failed just now: out of rotation, and the primary answers (below).
            if (!router.failed(target, error)) throw error;
            await waitOnPrimary(contract, point);
            return router.primary();
          }
          if (beyond) throw notIssued('names a position beyond the end of the log');
          // Committed, as its replay shows: the waiter ends at once (and refreshes what a rights change needs).
          await options.waiter.waitFor(point.position, contract.readModels, options.consistencyTimeoutMs, { committed: true });
          return target;
        }
        if (point.walLsn > (await router.primaryLsn())) throw notIssued("names a WAL position beyond the primary's");
        await waitOnPrimary(contract, point);
        return target;
      }
      await waitOnPrimary(contract, point);
      return router.pickReplayed(await router.primaryLsn(), waitMs);
    },
  };
}
