import { randomUUID } from 'node:crypto';
import { isUuid } from '@cairn/domain';
import { Router, type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { ConsistencyWaiter } from '../consistency/consistency-waiter.ts';
import type { GlobalPosition } from '../event-store/event-store.ts';
import { commitWalOf } from '../consistency/commit-wal.ts';
import { encodeConsistencyToken } from '../consistency/consistency-token.ts';
import { consistencyHeader, consistentReads } from './consistent-reads.ts';
import { readingOn } from '../db/read-routing.ts';
import type { ReadTarget, StandbyRouter } from '../db/standby-router.ts';
import { assertSameOriginWrite, type Authenticator } from './authenticate.ts';
import { bodyParser } from './body-parsing.ts';
import { queryStringIsUtf8 } from './body-text.ts';
import { coerceFormBody } from './form-coercion.ts';
import { HttpError, httpErrors } from './http-error.ts';
import { idempotencyHeader, idempotencyKeyPattern, requestFingerprint, type IdempotencyStore, type StoredResponse } from './idempotency.ts';
import { sendStream } from './send-stream.ts';
import { requiredScope, type BoundOperation, type IdempotentRequest, type OperationContract, type RequestContext, type StreamDigester } from './operation.ts';
import { assertValidText, parseOrThrow } from './validation.ts';

export type MountOptions = {
  readonly authenticate: Authenticator;
  /** Origins whose cookie-authenticated writes are accepted (the public URL's, and any configured). */
  readonly trustedOrigins: ReadonlySet<string>;
  readonly waiter: ConsistencyWaiter;
  readonly consistencyTimeoutMs: number;
  readonly bodyLimitBytes: number;
  /** Where the answers to Idempotency-Keys are kept; absent: the header is ignored. */
  readonly idempotency?: IdempotencyStore | undefined;
  /**
   * The newest committed position of the log (EventStore.headPosition). A consistency
   * token beyond it cannot have been issued: it is refused at once instead of waited for.
   * Absent: every well-formed token is waited for.
   */
  readonly headPosition?: (() => Promise<GlobalPosition>) | undefined;
  /** A streamed answer whose client reads nothing for this long is ended (CAIRN_STREAM_IDLE_TIMEOUT_MS). */
  readonly streamIdleTimeoutMs?: number | undefined;
  /**
   * The hot standbys reads of read models go to (DATABASE_READ_URL), and how long a read
   * with a token waits for one to replay the write before the primary answers it
   * (docs/consistency.md, "Standbys"). Absent: every read is the primary's.
   */
  readonly standbys?: { readonly router: StandbyRouter; readonly waitMs: number } | undefined;
};

export const standbyLagHeader = 'X-Standby-Lag-Ms';

const defaultStreamIdleTimeoutMs = 60_000;

export { consistencyHeader };

const toExpressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');
const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '');

/** Express's catch-all for async handlers, kept explicit so errors always reach the handler. */
const wrap =
  (fn: (req: Request, res: Response) => Promise<void>, continues = false): RequestHandler =>
  (req, res, next: NextFunction) => {
    fn(req, res).then(() => (continues ? next() : undefined), next);
  };

function requestContext(req: Request, caller: RequestContext['caller']): RequestContext {
  const header = (name: string) => {
    const value = req.headers[name];
    return typeof value === 'string' && value.length > 0 && value.length <= 200 ? value : undefined;
  };
  const requestId = header('x-request-id') ?? randomUUID();
  return { requestId, correlationId: header('x-correlation-id') ?? requestId, caller, now: new Date().toISOString() };
}

export function mountOperations(app: Express, operations: readonly BoundOperation[], options: MountOptions): void {
  const parseBody = bodyParser(options.bodyLimitBytes);
  const parseBodyOrStream = bodyParser(options.bodyLimitBytes, { streamMultipart: true });
  const tokens = consistentReads(options);
  const routes: { method: OperationContract['method']; path: string; steps: RequestHandler[] }[] = [];

  for (const { contract, handler, digestStream } of operations) {
    const uuidParams = pathParams(contract.path);
    const steps: RequestHandler[] = [
      // DECISIONS.md 1: a path parameter that is not a UUID is an unknown path.
      (req, _res, next) => next(uuidParams.every((name) => isUuid(String(req.params[name] ?? ''))) ? undefined : httpErrors.notFound()),
    ];
    // Credentials are checked before the body is read: an anonymous caller learns nothing more.
    steps.push(
      wrap(async (req, res) => {
        const caller = await options.authenticate(req.headers);
        if (caller?.via === 'session' && contract.side === 'command') assertSameOriginWrite(req.headers, options.trustedOrigins);
        if (contract.authenticated) {
          if (!caller) throw httpErrors.unauthenticated();
          const scope = requiredScope(contract);
          if (!caller.scopes.has(scope)) throw httpErrors.forbidden(`The access token lacks the "${scope}" scope.`, 'insufficient_scope');
        }
        res.locals['caller'] = caller;
      }, true),
    );
    if (contract.body) steps.push(contract.streamsMultipart ? parseBodyOrStream : parseBody);
    steps.push(
      wrap(async (req, res) => {
        const caller = (res.locals['caller'] ?? null) as RequestContext['caller'];
        const context = requestContext(req, caller);
        res.set('X-Request-Id', context.requestId);
        const target = await tokens.targetFor(req, contract);

        if (!queryStringIsUtf8(req.originalUrl)) throw httpErrors.validation({ non_field_errors: ['The query string does not percent-decode to UTF-8 text.'] }, 'The query parameters are not valid.');
        assertValidText(req.query, 'query');
        const query = contract.query ? parseOrThrow(contract.query, req.query, 'query') : {};
        let body: unknown = {};
        if (contract.body && req.bodyFormat !== 'stream') {
          const raw = req.body as Record<string, unknown>;
          if (contract.bodyRequired && req.bodyFormat === 'none') {
            throw httpErrors.validation({ non_field_errors: ['A request body is required.'] }, 'A request body is required.');
          }
          // Checked after coercion, so that JSON in a form field is checked too.
          const input = req.bodyFormat === 'form' ? coerceFormBody(contract.body, raw) : raw;
          assertValidText(input, 'body');
          body = parseOrThrow(contract.body, input, 'body');
        }

        const params: Record<string, string> = {};
        for (const name of uuidParams) params[name] = String(req.params[name]).toLowerCase();
        const keyed = await startIdempotent(req, contract, caller, body, options.idempotency, digestStream);
        if (keyed?.kind === 'replay') {
          send(res, { ...keyed.response, headers: { ...keyed.response.headers, 'Idempotent-Replayed': 'true' } });
          return;
        }
        const run = keyed ? { ...context, idempotency: keyed.request } : context;
        let result;
        try {
          const runHandler = () => handler({ params, query, body, context: run, req } as Parameters<typeof handler>[0]);
          result = target ? await onReadTarget(target, options, runHandler) : await runHandler();
          if (target?.standby && result.status < 300) res.set(standbyLagHeader, String(target.lagMs));
        } catch (error) {
          // Nothing to replay: a retry runs again (and reuses any events this attempt stored).
          if (keyed) await keyed.finish(null);
          throw error;
        }
        if (result.stream) {
          const streamed = { status: result.status, headers: result.headers, stream: result.stream };
          const idleMs = options.streamIdleTimeoutMs ?? defaultStreamIdleTimeoutMs;
          // A stream's later pages are read as it is sent: from the same server as its first.
          await (target ? readingOn(target.pools, () => sendStream(req, res, streamed, idleMs)) : sendStream(req, res, streamed, idleMs));
          return;
        }
        if (result.rawJsonBytes && !keyed && !result.position) {
          // A kept read answer: its bytes as they are, without encoding its text again.
          res.status(result.status).set(result.headers ?? {}).set('Content-Type', 'application/json; charset=utf-8').set('Content-Length', String(result.rawJsonBytes.length));
          res.end(req.method === 'HEAD' ? undefined : result.rawJsonBytes);
          return;
        }
        const response: StoredResponse = {
          status: result.status,
          headers: { ...result.headers, ...(result.position ? { [consistencyHeader]: encodeConsistencyToken({ position: result.position, walLsn: commitWalOf(result.position) }) } : {}) },
          body: result.rawJson ?? (result.body === undefined ? null : JSON.stringify(result.body)),
        };
        if (keyed) await keyed.finish(response, result.streamDigest === undefined ? undefined : streamedFingerprint(req, result.streamDigest));
        if (result.position) tokens.noteWritten(result.position);
        send(res, response);
      }),
    );
    routes.push({ method: contract.method, path: toExpressPath(contract.path), steps });
  }

  // Express tries every route's path in turn, whatever its method: a read went past every
  // write's path first (about a tenth of a read by id's Node time). Each method's routes
  // are also in a router of their own, tried first; what it does not answer (no route of
  // that method has the path) goes on to every route in order, as before, so that an
  // unanswered request meets the same layers and errors as it always did.
  const byMethod = new Map<string, Router>();
  for (const { method, path, steps } of routes) {
    const router = byMethod.get(method) ?? Router();
    byMethod.set(method, router);
    router[method](path, ...steps);
  }
  app.use((req, res, next) => {
    const router = byMethod.get(req.method === 'HEAD' ? 'get' : req.method.toLowerCase());
    if (router) router(req, res, next);
    else next();
  });
  for (const { method, path, steps } of routes) app[method](path, ...steps);
}

function send(res: Response, response: StoredResponse): void {
  res.set(response.headers);
  res.status(response.status);
  if (response.body === null) res.end();
  else res.type('application/json').send(response.body);
}

/**
 * Idempotency-Key on a write POST (docs/idempotency.md): the first answer is kept and
 * replayed; the same key with another body is 422; a request still running under the key
 * makes this one wait for its answer.
 */
async function startIdempotent(
  req: Request,
  contract: OperationContract,
  caller: RequestContext['caller'],
  body: unknown,
  store: IdempotencyStore | undefined,
  digestStream: StreamDigester | undefined,
): Promise<{ kind: 'replay'; response: StoredResponse } | { kind: 'run'; request: IdempotentRequest; finish: (response: StoredResponse | null, fingerprint?: string) => Promise<void> } | null> {
  const header = req.headers[idempotencyHeader.toLowerCase()];
  if (header === undefined || !store || contract.side !== 'command' || contract.method !== 'post' || !caller) return null;
  if (typeof header !== 'string' || !idempotencyKeyPattern.test(header)) {
    throw httpErrors.badRequest('invalid_idempotency_key', `The ${idempotencyHeader} header is 1 to 255 visible ASCII characters.`);
  }
  const streamed = req.bodyFormat === 'stream';
  let start = await store.start(caller.userId, header, streamed ? streamedFingerprint(req, 'unread') : requestFingerprint(req.method, req.path, body));
  if (start.kind === 'mismatch' && streamed && digestStream) {
    // A streamed body is known only once read: the key keeps the digest of the first one's,
    // so this one is read through (not stored) and compared.
    start = await store.start(caller.userId, header, streamedFingerprint(req, await digestStream(req)));
    if (start.kind === 'run') {
      // The key was forgotten meanwhile (its first attempt failed), and this body is spent.
      await store.finish(caller.userId, header, null);
      start = { kind: 'busy' };
    }
  }
  switch (start.kind) {
    case 'mismatch':
      throw new HttpError(422, 'idempotency_key_reused', `This ${idempotencyHeader} was used with another request; use a new key for a new request.`);
    case 'busy':
      throw new HttpError(409, 'idempotency_key_in_use', `A request with this ${idempotencyHeader} is still running; retry shortly.`, undefined, { 'Retry-After': '1' });
    case 'replay':
      return start;
    case 'run':
      return { kind: 'run', request: start.request, finish: (response, fingerprint) => store.finish(caller.userId, header, response, fingerprint) };
  }
}

/** The fingerprint of a streamed body: its digest (`unread` before it is read). */
const streamedFingerprint = (req: Request, digest: string) => requestFingerprint(req.method, req.path, { streamed: digest });

/** The handler with its reads on `target`; a standby that fails under it leaves the rotation and the primary answers instead. */
async function onReadTarget<T>(target: ReadTarget, options: MountOptions, run: () => Promise<T>): Promise<T> {
  try {
    return await readingOn(target.pools, run);
  } catch (error) {
    if (!options.standbys?.router.failed(target, error)) throw error;
    return run();
  }
}

const uuidSegment = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/**
 * After every route. A path of the interface asked with a method the interface does not
 * have is 405, with `Allow` naming every method the interface has there (so both split
 * services, behind the gateway, answer alike). A method the interface has but that
 * another service serves (only reachable by bypassing the gateway) is 421. Anything else,
 * including an id that is not a UUID, is 404.
 */
export function unmatchedRoutes(allContracts: readonly OperationContract[], servedContracts: readonly OperationContract[]): RequestHandler {
  const patterns = new Map<string, { regex: RegExp; methods: Set<string>; served: Set<string> }>();
  const served = new Set(servedContracts.map((c) => c.operationId));
  for (const contract of allContracts) {
    const entry = patterns.get(contract.path) ?? {
      regex: new RegExp(`^${contract.path.replace(/\/$/, '').replace(/\{\w+\}/g, uuidSegment)}/?$`),
      methods: new Set<string>(),
      served: new Set<string>(),
    };
    const methods = contract.method === 'get' ? ['GET', 'HEAD'] : [contract.method.toUpperCase()];
    for (const method of methods) {
      entry.methods.add(method);
      if (served.has(contract.operationId)) entry.served.add(method);
    }
    patterns.set(contract.path, entry);
  }
  return (req, _res, next) => {
    for (const { regex, methods, served: here } of patterns.values()) {
      if (!regex.test(req.path)) continue;
      if (!methods.has(req.method)) return next(httpErrors.methodNotAllowed(req.method, [...methods].sort()));
      if (!here.has(req.method)) return next(httpErrors.misdirected());
    }
    next(httpErrors.notFound(`No route for ${req.method} ${req.path}.`));
  };
}
