import type { OperationContract } from '@cairn/platform';
import type { Request } from 'express';

/** Served to anyone, outside the contract: the OAuth server with its sign-in pages, discovery, the API page. */
const anonymousPrefixes = ['/oauth/', '/.well-known/', '/api/docs'];
const apiSchemaPath = /^\/api\/schema\/?$/;

// Path ids are UUIDs: any other is an unknown path, answered 404 before anything else (DECISIONS.md 1).
const uuid = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const pattern = (path: string) => new RegExp(`^${path.replace(/\{\w+\}/g, uuid).replace(/\/$/, '')}/?$`);

/**
 * Whether a request goes to a route that needs no token: those above, and the operations
 * the contract marks unauthenticated (the permission flags, signed download links). Such
 * routes are bounded and budgeted per client address (docs/sign-in.md); the probes
 * (/healthz, /readyz, /metrics) are not, since the platform's own checks call them.
 */
export function anonymousRoutes(contracts: readonly OperationContract[]): (req: Request) => boolean {
  // A signed raw body (a direct upload's part) carries its own credential and is bounded by it.
  const open = contracts.filter((c) => !c.authenticated && !c.rawBody).map((c) => ({ method: c.method.toUpperCase(), path: pattern(c.path) }));
  return (req) => {
    const path = req.path;
    if (anonymousPrefixes.some((prefix) => path.startsWith(prefix)) || apiSchemaPath.test(path)) return true;
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    return open.some((c) => c.method === method && c.path.test(path));
  };
}
