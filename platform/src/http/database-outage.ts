import type { Logger } from '../logging/logger.ts';

const networkCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
// PostgreSQL: connection exceptions (08), shutting down or not yet accepting (57P01-57P03), too many connections.
const serverCodes = new Set(['08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03', '53300']);
// The pool's connect and query timeouts (a server that takes connections but answers nothing), and cut connections.
const messages = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /^Query read timeout/,
  /Client has encountered a connection error/,
  /the database system is (starting up|shutting down)/,
];

/**
 * 55000 (object_not_in_prerequisite_state) is an outage only when a connection is refused
 * with it (`ALTER DATABASE ... ALLOW_CONNECTIONS false`, a database being dropped): a
 * statement can meet it too (`currval` before `nextval`), and that is a bug, not an outage.
 * The routine names where the server raised it; it is not translated, unlike the message.
 */
function refusedAtConnect(error: Error & { code?: unknown; routine?: unknown }): boolean {
  return error.code === '55000' && (error.routine === 'CheckMyDatabase' || /accepting connections/.test(error.message));
}

/** Whether a failure means the database cannot be reached (as opposed to a query that failed). */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  if (typeof code === 'string' && (networkCodes.has(code) || serverCodes.has(code))) return true;
  if (refusedAtConnect(error)) return true;
  if (error instanceof AggregateError && error.errors.some(isDatabaseUnavailable)) return true;
  return messages.some((m) => m.test(error.message));
}

/** A statement the server cancelled: statement_timeout (57014 query_canceled). */
export function isStatementTimeout(error: unknown): boolean {
  return error instanceof Error && (error as Error & { code?: unknown }).code === '57014';
}

export type OutageTracker = {
  /** A request failed because the database is unreachable: logged once per outage. */
  failed(error: unknown): void;
  close(): void;
};

export type OutageProbe = {
  /** One round trip to the database; resolves when it answered. */
  readonly check: () => Promise<unknown>;
  readonly intervalMs?: number;
};

/**
 * An outage answers 503 with Retry-After (docs/observability.md, "Database outages") and
 * writes two log lines, one when it starts and one when it ends, not a stack trace per
 * request. Its end is found by probing the database, not by the next good answer: /healthz
 * and other answers that need no database would end it at once. The pool reconnects by
 * itself: recovery needs no restart.
 */
export function createOutageTracker(logger: Logger, probe: OutageProbe): OutageTracker {
  const intervalMs = probe.intervalMs ?? 1000;
  let since: number | null = null;
  let failures = 0;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => {
      timer = null;
      probe.check().then(
        () => {
          if (since === null) return;
          logger.warn('database reachable again', { outageMs: Date.now() - since, failedRequests: failures });
          since = null;
          failures = 0;
        },
        () => schedule(),
      );
    }, intervalMs);
    timer.unref();
  };
  return {
    failed(error) {
      failures += 1;
      if (since !== null) return;
      since = Date.now();
      logger.error('database unreachable: answering 503 until it is back', { error: error instanceof Error ? error.message : String(error) });
      schedule();
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}
