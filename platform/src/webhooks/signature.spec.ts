import { describe, expect, it } from 'vitest';
import { openSecret, sealSecret } from './sealed-secret.ts';
import { signWebhook, verifyWebhookSignature } from './signature.ts';

describe('webhook signatures', () => {
  const body = '{"position":"1.2"}';
  it('verify with the secret, within the tolerance', () => {
    const header = signWebhook('whsec_x', 1_700_000_000, body);
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(header, body, 'whsec_x', { nowSeconds: 1_700_000_100 })).toBe(true);
    expect(verifyWebhookSignature(header, body, 'whsec_y', { nowSeconds: 1_700_000_100 })).toBe(false);
    expect(verifyWebhookSignature(header, `${body} `, 'whsec_x', { nowSeconds: 1_700_000_100 })).toBe(false);
    expect(verifyWebhookSignature(header, body, 'whsec_x', { nowSeconds: 1_700_001_000 })).toBe(false);
    expect(verifyWebhookSignature('t=1,v1=zz', body, 'whsec_x')).toBe(false);
  });

  it('seal a secret so that only the key opens it', () => {
    const key = Buffer.alloc(32, 7);
    const sealed = sealSecret(key, 'whsec_x');
    expect(sealed).not.toContain('whsec_x');
    expect(openSecret(key, sealed)).toBe('whsec_x');
    expect(() => openSecret(Buffer.alloc(32, 8), sealed)).toThrow();
  });
});
