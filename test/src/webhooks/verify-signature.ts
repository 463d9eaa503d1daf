import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The receiver's check exactly as docs/changes.md ("Verifying a delivery") tells it, kept
 * apart from the service's own code so that the recipe itself is what is tested.
 */
export function verify(signatureHeader: string, rawBody: string, secret: string, toleranceSeconds = 300): boolean {
  const parts = Object.fromEntries(signatureHeader.split(',').map((kv) => kv.split('=')));
  const timestamp = Number(parts.t);
  if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${parts.t}.${rawBody}`).digest('hex');
  return typeof parts.v1 === 'string' && parts.v1.length === expected.length && timingSafeEqual(Buffer.from(parts.v1), Buffer.from(expected));
}
