import { parseHostAddress, type IpAddress } from './ip-address.ts';
import type { NetworkList } from './networks.ts';

/** The parts of an HTTP request the client address is read from (an Express request fits). */
export type ClientRequest = {
  readonly socket: { readonly remoteAddress?: string | undefined };
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
};

/**
 * The client's address. X-Forwarded-For is believed only as far as it was written by
 * trusted proxies: starting from the socket peer, each hop that is a trusted proxy hands
 * over to the address it reported, right to left, until an untrusted hop is reached (the
 * client) or the header runs out (its leftmost entry is the client). Without trusted
 * proxies the header is ignored. A malformed entry where an address is needed makes the
 * client unknown (null) rather than guessed.
 */
export function resolveClientAddress(request: ClientRequest, trustedProxies: NetworkList): IpAddress | null {
  const peer = request.socket.remoteAddress;
  let client = peer === undefined ? null : parseHostAddress(peer);
  if (!client || trustedProxies.size === 0) return client;
  const header = request.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((hop) => hop.trim())
    .filter((hop) => hop !== '');
  for (let i = hops.length - 1; i >= 0 && trustedProxies.contains(client); i -= 1) {
    const hop = parseHostAddress(hops[i] ?? '');
    if (!hop) return null;
    client = hop;
  }
  return client;
}
