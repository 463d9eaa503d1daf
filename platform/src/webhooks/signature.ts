import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header that carries a delivery's signature (docs/changes.md, "Verifying a delivery"). */
export const signatureHeader = 'Cairn-Signature';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the subscription's secret>`. */
export function signWebhook(secret: string, timestampSeconds: number, body: string): string {
  const digest = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${digest}`;
}

/**
 * The receiver's check, as docs/changes.md shows it: the signature matches the body and the
 * timestamp is within `toleranceSeconds` of now (a captured delivery cannot be replayed later).
 */
export function verifyWebhookSignature(header: string, body: string, secret: string, options: { toleranceSeconds?: number; nowSeconds?: number } = {}): boolean {
  const parts = new Map(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (options.toleranceSeconds ?? 300)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}
