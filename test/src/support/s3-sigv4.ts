import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * s3rver 3.7 accepts any SigV4 signature ("Signature version 4 calculation is unimplemented"),
 * so a test of a forged or expired presigned URL against it could not fail. This checks a
 * presigned (query) SigV4 request the way S3 does: the canonical request from the method, the
 * path as sent, the query without the signature and the headers the URL signed, with an
 * unsigned payload; then the expiry.
 */
export type PresignedCheck = { readonly ok: true } | { readonly ok: false; readonly code: 'SignatureDoesNotMatch' | 'AccessDenied'; readonly message: string };

const rfc3986 = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();

export function isPresigned(req: IncomingMessage): boolean {
  return (req.url ?? '').includes('X-Amz-Signature=');
}

export function checkPresigned(req: IncomingMessage, secretAccessKey: string, now = Date.now()): PresignedCheck {
  const url = req.url ?? '/';
  const [rawPath = '/', rawQuery = ''] = url.split('?', 2);
  const pairs = rawQuery
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const [k = '', v = ''] = p.split('=', 2);
      return [decodeURIComponent(k.replace(/\+/g, '%20')), decodeURIComponent(v.replace(/\+/g, '%20'))] as const;
    });
  const query = new Map(pairs);
  const given = query.get('X-Amz-Signature') ?? '';
  const amzDate = query.get('X-Amz-Date') ?? '';
  const credential = (query.get('X-Amz-Credential') ?? '').split('/');
  const signedHeaders = (query.get('X-Amz-SignedHeaders') ?? '').split(';').filter((h) => h !== '');
  const canonicalQuery = pairs
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const headerValue = (name: string) => {
    const value = req.headers[name];
    return (Array.isArray(value) ? value.join(',') : (value ?? '')).trim().replace(/\s+/g, ' ');
  };
  const canonicalHeaders = signedHeaders.map((h) => `${h}:${headerValue(h)}\n`).join('');
  const payload = query.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
  const canonicalRequest = [req.method ?? 'GET', rawPath, canonicalQuery, canonicalHeaders, signedHeaders.join(';'), payload].join('\n');
  const scope = credential.slice(1).join('/');
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  const [date = '', region = '', service = ''] = credential.slice(1);
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), service), 'aws4_request');
  const expected = Buffer.from(hmac(key, stringToSign).toString('hex'));
  if (expected.length !== Buffer.byteLength(given) || !timingSafeEqual(expected, Buffer.from(given))) {
    return { ok: false, code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match the signature you provided.' };
  }
  const signedAt = Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  const expires = Number(query.get('X-Amz-Expires') ?? '0');
  if (!Number.isFinite(signedAt) || now > signedAt + expires * 1000) return { ok: false, code: 'AccessDenied', message: 'Request has expired' };
  return { ok: true };
}
