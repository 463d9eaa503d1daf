import type { EventStore, GlobalPosition, Logger, OAuthServer, RateLimiter, SessionCookie, WebSessions } from '@cairn/platform';
import type { NewUserAllocation } from '../storage/default-allocation.ts';
import type { UpstreamProvider } from './upstream.ts';
import type { Request } from 'express';
import type pg from 'pg';

export type SignInDeps = {
  readonly pool: pg.Pool;
  readonly oauth: OAuthServer;
  readonly sessions: WebSessions;
  readonly cookie: SessionCookie;
  readonly rateLimiter: RateLimiter;
  readonly eventStore: EventStore;
  readonly logger: Logger;
  readonly limits: { readonly maxFailuresPerAccount: number; readonly maxFailuresPerAddress: number; readonly failureWindowSeconds: number };
  /** The caller's address, as the deployment's trusted proxies report it. */
  readonly clientAddress: (req: Request) => string;
  readonly publicUrl: string;
  /** The upstream OpenID Connect provider, when the deployment configures one. */
  readonly upstream: UpstreamProvider | null;
  /** Waits until the identity read model shows a write (a user registered at sign-in). */
  readonly awaitUsers: (position: GlobalPosition) => Promise<void>;
  /** What a user made at a first upstream sign-in is granted (docs/storage.md). */
  readonly newUserAllocation: NewUserAllocation;
};
