import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The service's own download links for fs content (docs/storage.md): the link names the
 * record and its expiry, and an HMAC of both under a server secret is its only credential.
 */
export function signDownload(key: string, assetId: string, contentId: string, expiresAt: number): string {
  return createHmac('sha256', key).update(`${assetId}:${contentId}:${expiresAt}`).digest('base64url');
}

export function downloadSignatureValid(key: string, assetId: string, contentId: string, expires: string, signature: string, nowSeconds: number): boolean {
  if (!/^\d{1,15}$/.test(expires) || Number(expires) < nowSeconds) return false;
  const expected = Buffer.from(signDownload(key, assetId, contentId, Number(expires)));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
