import type { BoundOperation, OperationHandler } from '@cairn/platform';
import { geoOf } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { answerBytes, type ReadCache } from './read-cache.ts';
import { snapshotReaderOf } from './snapshot-reader.ts';

/**
 * The operation with its successful answers kept in `cache` (docs/read-cache.md). What an
 * answer depends on besides the database is all in the key: the operation, the caller
 * (user, administrator or not, scopes), the path parameters, the parsed query and body,
 * and where the request comes from (the geographic restrictions of projects).
 * Errors and streams are never kept.
 */
export function cachedOperation(deps: QueryDeps, cache: ReadCache | undefined, operation: BoundOperation): BoundOperation {
  if (!cache) return operation;
  const handler: OperationHandler = async (input) => {
    const caller = input.context.caller;
    if (!caller) return operation.handler(input);
    // Per request: the server it reads from is chosen for it (docs/consistency.md, "Standbys").
    const { server, read: currentSnapshot } = snapshotReaderOf(deps.db);
    const key = JSON.stringify([
      operation.contract.operationId,
      caller.userId,
      caller.isSystemAdmin,
      [...caller.scopes].sort(),
      input.params,
      input.query,
      input.body,
      deps.geo ? geoOf(deps).locate(input.req) : null,
    ]);
    const before = await currentSnapshot();
    const kept = cache.get(key, before, server);
    if (kept) {
      cache.hits += 1;
      return kept;
    }
    cache.misses += 1;
    const result = await operation.handler(input);
    if (result.stream || result.status !== 200) return result;
    // Kept only when nothing was committed while it was computed: then it is the answer at `before`.
    if ((await currentSnapshot()) === before) cache.set(key, before, result, answerBytes(result), server);
    return result;
  };
  return { contract: operation.contract, handler };
}
