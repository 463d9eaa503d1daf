import { parseIpAddress, type IpAddress } from './ip-address.ts';

export type Network = { readonly version: 4 | 6; readonly prefix: number; readonly base: bigint };

const widthOf = (version: 4 | 6) => (version === 4 ? 32 : 128);

/** `10.0.0.0/8`, `2001:db8::/32`, or one address (a /32 or /128). Host bits are ignored. */
export function parseNetwork(input: string): Network | null {
  const [addressText = '', prefixText, extra] = input.trim().split('/');
  if (extra !== undefined) return null;
  const address = parseIpAddress(addressText);
  if (!address) return null;
  // An IPv4-mapped IPv6 network (::ffff:10.0.0.0/104) is the IPv4 network it maps.
  const mapped = address.version === 4 && addressText.includes(':');
  const width = widthOf(address.version);
  let prefix = width;
  if (prefixText !== undefined) {
    if (!/^\d{1,3}$/.test(prefixText)) return null;
    prefix = Number(prefixText) - (mapped ? 96 : 0);
    if (prefix < 0 || prefix > width) return null;
  }
  return { version: address.version, prefix, base: mask(address.value, width, prefix) };
}

function mask(value: bigint, width: number, prefix: number): bigint {
  const hostBits = BigInt(width - prefix);
  return (value >> hostBits) << hostBits;
}

export function networkContains(network: Network, address: IpAddress): boolean {
  if (network.version !== address.version) return false;
  return mask(address.value, widthOf(network.version), network.prefix) === network.base;
}

export type NetworkList = {
  readonly size: number;
  contains(address: IpAddress): boolean;
};

/** Entries that are not networks, so configuration can name them all at once. */
export function invalidNetworks(entries: readonly string[]): string[] {
  return entries.filter((entry) => parseNetwork(entry) === null);
}

export function createNetworkList(entries: readonly string[]): NetworkList {
  const bad = invalidNetworks(entries);
  if (bad.length > 0) throw new Error(`not an IP address or CIDR network: ${bad.join(', ')}`);
  const networks = entries.map((entry) => parseNetwork(entry) as Network);
  return { size: networks.length, contains: (address) => networks.some((n) => networkContains(n, address)) };
}

/** A comma-separated list, or the lines of a file: blanks and `#` comments are skipped. */
export function splitNetworkList(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((line) => (line.split('#')[0] ?? '').trim())
    .filter((entry) => entry !== '');
}

export const emptyNetworkList: NetworkList = createNetworkList([]);
