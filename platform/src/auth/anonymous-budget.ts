import type { Request, RequestHandler } from 'express';
import type { IpAddress } from '../geo/ip-address.ts';
import { maxOAuthBodyBytes, oversizedQuery, refuseAnonymous, startsSignInState } from './anonymous-requests.ts';
import type { RateLimiter, RateLimitState } from './rate-limiter.ts';

export type AnonymousBudgetOptions = {
  readonly rateLimiter: RateLimiter;
  /** Behind CAIRN_TRUSTED_PROXIES, the forwarded address. */
  readonly clientAddress: (req: Request) => IpAddress | null;
  /** The routes that need no token (the OAuth server, sign-in pages, docs, download links). */
  readonly isAnonymous: (req: Request) => boolean;
  readonly requestsPerMinute: number;
  readonly startsPerMinute: number;
};

/** Blocked addresses remembered in the process, at most this many. */
const rememberedLimit = 10_000;

/**
 * One IPv6 host usually holds a whole /64: counting its addresses apart would give it 2^64
 * budgets. IPv4 addresses count one by one.
 */
export function budgetKeyOf(address: IpAddress | null): string {
  if (!address) return 'unknown';
  return address.version === 4 ? address.text : `${(address.value >> 64n).toString(16)}::/64`;
}

/**
 * Every anonymous request: its query bounded (400), its declared body bounded (413), then
 * counted against its client address's budget per minute (429 with Retry-After); one that
 * may store sign-in state counts against the smaller budget of starts as well. The counters
 * are rate_limit_counters in PostgreSQL, shared by every process of the deployment; a
 * process remembers an address it saw blocked until its window ends, so a flood costs the
 * database one statement per window, not one per request (docs/sign-in.md).
 */
export function anonymousBudget(options: AnonymousBudgetOptions): RequestHandler {
  const { rateLimiter } = options;
  const blockedUntil = new Map<string, number>();

  const remember = (key: string, state: RateLimitState) => {
    if (blockedUntil.size >= rememberedLimit) {
      const now = Date.now();
      for (const [k, until] of blockedUntil) if (until <= now) blockedUntil.delete(k);
      if (blockedUntil.size >= rememberedLimit) blockedUntil.clear();
    }
    blockedUntil.set(key, Date.now() + state.retryAfterSeconds * 1000);
  };
  const remembered = (key: string): number | null => {
    const until = blockedUntil.get(key);
    if (until === undefined) return null;
    if (until > Date.now()) return Math.max(1, Math.ceil((until - Date.now()) / 1000));
    blockedUntil.delete(key);
    return null;
  };

  return (req, res, next) => {
    if (!options.isAnonymous(req)) return next();
    const tooLong = oversizedQuery(req.originalUrl);
    if (tooLong) return refuseAnonymous(req, res, 400, 'parameter_too_long', tooLong);
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxOAuthBodyBytes) return refuseAnonymous(req, res, 413, 'payload_too_large', `A request here may carry at most ${maxOAuthBodyBytes} bytes.`);

    const address = budgetKeyOf(options.clientAddress(req));
    const budgets: [string, number][] = [[`anonymous:address:${address}`, options.requestsPerMinute]];
    if (startsSignInState(req)) budgets.push([`oauth-start:address:${address}`, options.startsPerMinute]);
    const waits = budgets.map(([key]) => remembered(key));
    const known = Math.max(0, ...waits.map((w) => w ?? 0));
    if (known > 0) return refuseAnonymous(req, res, 429, 'rate_limited', 'Too many requests from this address; try again later.', { 'Retry-After': String(known) });

    Promise.all(budgets.map(([key, limit]) => rateLimiter.hit(key, limit, 60).then((state) => ({ key, state }))))
      .then((states) => {
        const blocked = states.filter((s) => s.state.blocked);
        for (const { key, state } of blocked) remember(key, state);
        if (blocked.length === 0) return next();
        const wait = Math.max(...blocked.map((s) => s.state.retryAfterSeconds));
        refuseAnonymous(req, res, 429, 'rate_limited', 'Too many requests from this address; try again later.', { 'Retry-After': String(wait) });
      })
      // Fails open: the counters are in the database, and a request that needs the database
      // meets its outage itself (503); the docs page and the keys need none.
      .catch(() => next());
  };
}
