import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * A subscription's secret signs its deliveries, so it must be had in clear when one is
 * sent; the log and its audit must not hold it so. It travels in the events sealed with
 * the server's webhook key (AES-256-GCM): `v1.<iv>.<tag>.<ciphertext>`, base64url.
 */
export function sealSecret(key: Buffer, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

export function openSecret(key: Buffer, sealed: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('not a sealed webhook secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

/** A secret for a subscription created without one: answered once, at creation. */
export const generateWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64url')}`;
