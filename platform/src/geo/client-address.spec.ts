import { describe, expect, it } from 'vitest';
import { resolveClientAddress } from './client-address.ts';
import { createNetworkList, emptyNetworkList } from './networks.ts';

const request = (peer: string | undefined, forwardedFor?: string | string[]) => ({
  socket: { remoteAddress: peer },
  headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
});
const proxies = createNetworkList(['127.0.0.1', '10.0.0.0/8']);
const resolve = (peer: string | undefined, forwardedFor?: string | string[], trusted = proxies) => resolveClientAddress(request(peer, forwardedFor), trusted)?.text ?? null;

describe('client address', () => {
  it('is the socket peer when no proxy is trusted, whatever the header says', () => {
    expect(resolve('::ffff:127.0.0.1', '8.8.8.8', emptyNetworkList)).toBe('127.0.0.1');
    expect(resolve('203.0.113.9', '8.8.8.8')).toBe('203.0.113.9');
  });

  it('follows X-Forwarded-For through trusted proxies, right to left', () => {
    expect(resolve('127.0.0.1', '8.8.8.8')).toBe('8.8.8.8');
    expect(resolve('127.0.0.1', '80.128.0.1, 8.8.8.8, 10.1.1.1')).toBe('8.8.8.8');
    // A client cannot push its own claim past an untrusted hop.
    expect(resolve('127.0.0.1', 'spoofed-by-client, 8.8.8.8')).toBe('8.8.8.8');
    expect(resolve('127.0.0.1', ['80.128.0.1', '10.0.0.2'])).toBe('80.128.0.1');
  });

  it('takes the leftmost entry when every hop is a trusted proxy', () => {
    expect(resolve('127.0.0.1', '10.0.0.3, 10.0.0.2')).toBe('10.0.0.3');
  });

  it('reads ports and brackets, and gives up on a malformed hop it would have to believe', () => {
    expect(resolve('127.0.0.1', '[2003::1]:5000')).toBe('2003::1');
    expect(resolve('127.0.0.1', '8.8.8.8, garbage')).toBeNull();
    expect(resolve('127.0.0.1', '')).toBe('127.0.0.1');
    expect(resolve(undefined, '8.8.8.8')).toBeNull();
  });
});
