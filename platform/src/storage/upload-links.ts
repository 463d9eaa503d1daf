import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The service's signed part URLs of fs direct uploads (docs/storage.md "Direct uploads"):
 * the URL names the asset, the upload, the part and its expiry, and an HMAC of all four is
 * its only credential. The key is derived from the download links' server secret for this
 * one use, so a download signature can never pass for an upload one, nor the reverse.
 */
export function uploadLinkKey(downloadKey: string): Buffer {
  return createHmac('sha256', downloadKey).update('cairn direct upload parts v1').digest();
}

export type PartLink = { readonly assetId: string; readonly uploadId: string; readonly partNumber: number; readonly expiresAt: number };

export function signPart(key: Buffer, link: PartLink): string {
  return createHmac('sha256', key).update(`part:${link.assetId}:${link.uploadId}:${link.partNumber}:${link.expiresAt}`).digest('base64url');
}

/** Whether the query of a part URL is one this service signed and is not past its expiry (seconds since the epoch). */
export function partSignatureValid(key: Buffer, link: { assetId: string; uploadId: string; part: string; expires: string; signature: string }, nowSeconds: number): boolean {
  if (!/^[1-9]\d{0,4}$/.test(link.part) || !/^\d{1,15}$/.test(link.expires) || Number(link.expires) <= nowSeconds) return false;
  const expected = Buffer.from(signPart(key, { assetId: link.assetId, uploadId: link.uploadId, partNumber: Number(link.part), expiresAt: Number(link.expires) }));
  const given = Buffer.from(link.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
