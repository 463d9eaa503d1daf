import { z } from 'zod';

type HeaderDefinition = { readonly schema: z.ZodType; readonly description: string };

/**
 * The response headers operations document (components.headers of the OpenAPI document),
 * beyond those every answer carries (docs/api-docs.md). Which answer documents which is
 * derived in documented-answers.ts; a contract names the ones that cannot be derived.
 */
export const responseHeaders = {
  'X-Consistency-Token': { schema: z.string(), description: 'Send it back as the X-Consistency-Token request header: the read then waits until the read models reflect this write.' },
  'X-Standby-Lag-Ms': {
    schema: z.int().min(0),
    description:
      'Present when a PostgreSQL standby answered: how far its replay was behind the primary, in milliseconds (0: it had everything the primary had a moment before). A read without X-Consistency-Token may be that stale; one with a token always reflects the write.',
  },
  'Idempotent-Replayed': { schema: z.literal('true'), description: 'This is the kept answer of an earlier request with the same Idempotency-Key; nothing was written again.' },
  Location: { schema: z.string(), description: 'The address of what was created, a path on this service.' },
  'X-Page-Limit': { schema: z.int().min(1), description: 'The page size used, after clamping (interface 4.3.2).' },
  'X-Has-More': { schema: z.enum(['true', 'false']), description: 'Whether another page may follow.' },
  'X-Next-Cursor': { schema: z.string(), description: 'Present when another page may follow: send it as `cursor` to get that page.' },
  'X-Post-Filter': { schema: z.literal('true'), description: 'Exact metadata post-filtering ran: the page may be short, even empty, while X-Has-More is `true`.' },
  'X-Scan-Cap-Hit': { schema: z.literal('true'), description: 'The post-filter scan stopped at its safety cap; follow X-Next-Cursor to scan on.' },
  'X-Scan-Scanned': { schema: z.int().min(0), description: 'With X-Scan-Cap-Hit: how many rows were examined.' },
  'Retry-After': { schema: z.int().min(0), description: 'Seconds to wait before trying again.' },
  'WWW-Authenticate': { schema: z.string(), description: 'The challenge: `Bearer` (RFC 6750).' },
  'Set-Cookie': { schema: z.string(), description: 'Clears the session cookie.' },
  'Content-Disposition': { schema: z.string(), description: '`attachment`, with the content’s file name.' },
  'X-Accel-Buffering': { schema: z.literal('no'), description: 'On an event stream: a proxy (nginx) must pass each event on at once, not buffer the answer.' },
  'Cache-Control': { schema: z.string(), description: 'How long the answer may be kept (`no-store` on refusals of routes that need no token).' },
} as const satisfies Record<string, HeaderDefinition>;

export type ResponseHeaderName = keyof typeof responseHeaders;
