import { lookup } from 'node:dns/promises';
import { parseIpAddress, type IpAddress } from '../geo/ip-address.ts';
import { createNetworkList, type NetworkList } from '../geo/networks.ts';
import { specialPurposeNetworks } from '../geo/special-addresses.ts';

/**
 * Where webhooks may be sent (docs/changes.md, "Webhooks"): public addresses over https.
 * `allowedNetworks` opens special-purpose ranges again (a local receiver in tests, an
 * on-premise deployment's private network); `allowHttp` lets plain http through.
 */
export type WebhookTargetPolicy = { readonly allowedNetworks: NetworkList; readonly allowHttp: boolean };

export type Resolve = (host: string) => Promise<readonly string[]>;

// Besides the special-purpose registry, the IPv6 forms that embed any IPv4 address, the private
// ones too: NAT64's well-known prefix, the deprecated IPv4-compatible addresses (::a.b.c.d) and
// SIIT's IPv4-translated ones (::ffff:0:a.b.c.d). Linux routes neither of the last two today;
// a translator on the path might.
const alsoRefused = createNetworkList(['64:ff9b::/96', '::/96', '::ffff:0:0:0/96']);

/** A lookup that takes longer refuses the target: a request or a delivery never waits on a resolver for long. */
const resolveTimeoutMs = 5000;

/** The system's resolver (getaddrinfo: /etc/hosts too), every address of the name. */
export const resolveAll: Resolve = async (host) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('lookup timed out')), resolveTimeoutMs);
  });
  try {
    return (await Promise.race([lookup(host, { all: true, verbatim: true }), timeout])).map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
};

/** A target that passed: the URL, and the one checked address to connect to (no second lookup, so no rebinding). */
export type CheckedTarget = { readonly url: URL; readonly address: IpAddress };

export class WebhookTargetRefused extends Error {
  override name = 'WebhookTargetRefused';
}

function refusedAddress(address: IpAddress, policy: WebhookTargetPolicy): boolean {
  if (policy.allowedNetworks.contains(address)) return false;
  return specialPurposeNetworks.contains(address) || alsoRefused.contains(address);
}

/** Parses the URL and checks it against the policy without resolving: what a request can be refused on at once. */
export function parseWebhookUrl(text: string, policy: WebhookTargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookTargetRefused('The URL is not an absolute URL.');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) throw new WebhookTargetRefused(policy.allowHttp ? 'The URL must be http or https.' : 'The URL must be https.');
  if (url.username || url.password) throw new WebhookTargetRefused('The URL must not carry credentials.');
  return url;
}

/**
 * Resolves the host and refuses it when any of its addresses is special-purpose (loopback,
 * private, link-local, CGNAT, multicast, unspecified, IPv4-mapped forms of those...) and not
 * allowed: a name with one public and one private address is refused, since either may be
 * the one connected to. Checked at creation and again before every delivery.
 */
export async function checkWebhookTarget(text: string, policy: WebhookTargetPolicy, resolve: Resolve = resolveAll): Promise<CheckedTarget> {
  const url = parseWebhookUrl(text, policy);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = parseIpAddress(host);
  let addresses: IpAddress[];
  if (literal) addresses = [literal];
  else {
    let resolved: readonly string[];
    try {
      resolved = await resolve(host);
    } catch {
      throw new WebhookTargetRefused(`The host ${host} could not be resolved.`);
    }
    addresses = resolved.map((a) => parseIpAddress(a)).filter((a): a is IpAddress => a !== null);
    if (addresses.length === 0) throw new WebhookTargetRefused(`The host ${host} has no address.`);
  }
  const refused = addresses.find((a) => refusedAddress(a, policy));
  // The address a name resolved to is not told: the answer must not map the service's internal network for its callers.
  if (refused) throw new WebhookTargetRefused(`The host ${host} ${literal ? 'is' : 'resolves to'} a loopback, private, link-local or other special-purpose address, which webhooks may not reach.`);
  const [address] = addresses as [IpAddress, ...IpAddress[]];
  return { url, address };
}
