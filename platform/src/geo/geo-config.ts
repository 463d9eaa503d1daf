import { z } from 'zod';
import { invalidNetworks, splitNetworkList } from './networks.ts';

/** CAIRN_TRUSTED_PROXIES: comma-separated addresses and CIDR networks; default none. */
export const networkListSetting = z
  .string()
  .default('')
  .transform(splitNetworkList)
  .superRefine((entries, ctx) => {
    const bad = invalidNetworks(entries);
    if (bad.length > 0) ctx.addIssue({ code: 'custom', message: `not an IP address or CIDR network: ${bad.join(', ')}` });
  });

/**
 * CAIRN_VPN_NETWORKS: comma-separated CIDR networks, or the path of a file with one per
 * line (read at start); default none.
 */
export const vpnNetworksSetting = z
  .string()
  .default('')
  .transform((value, ctx): { networks: string[]; file: string | undefined } => {
    const entries = splitNetworkList(value);
    if (invalidNetworks(entries).length === 0) return { networks: entries, file: undefined };
    if (entries.length === 1 && !value.includes(',')) return { networks: [], file: value.trim() };
    ctx.addIssue({ code: 'custom', message: `not an IP address or CIDR network: ${invalidNetworks(entries).join(', ')}` });
    return z.NEVER;
  });
