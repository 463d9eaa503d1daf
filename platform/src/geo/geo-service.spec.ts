import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.ts';
import { HttpError } from '../http/http-error.ts';
import type { Logger } from '../logging/logger.ts';
import { parseIpAddress } from './ip-address.ts';
import type { GeoPolicy } from './geo-policy.ts';
import { geoServiceFromConfig } from './geo-service.ts';

function capturingLogger() {
  const warnings: { message: string; fields: Record<string, unknown> | undefined }[] = [];
  const ignore = () => undefined;
  const logger: Logger = { debug: ignore, info: ignore, error: ignore, warn: (message, fields) => warnings.push({ message, fields }) };
  return { logger, warnings };
}

const policy: GeoPolicy = { enabled: true, basis: 'ip', allowedCountries: ['DE'], deniedCountries: [], blockVpn: true, failClosed: true, incomplete: false };
const fromProxy = (forwardedFor: string) => ({ socket: { remoteAddress: '::ffff:127.0.0.1' }, headers: { 'x-forwarded-for': forwardedFor } });
const subject = { projectId: 'p-1', userId: 'u-1' };

describe('geo service', () => {
  it('enforces the policy on the resolved client and logs denials with ids only', async () => {
    const { logger, warnings } = capturingLogger();
    const geo = geoServiceFromConfig(loadConfig({ CAIRN_TRUSTED_PROXIES: '127.0.0.1', CAIRN_VPN_NETWORKS: '80.128.0.0/24' }), logger);
    await expect(geo.enforce({ request: fromProxy('62.155.0.1'), policy, affiliationCountry: async () => null, subject })).resolves.toBeUndefined();

    const denied = await geo.enforce({ request: fromProxy('8.8.8.8'), policy, affiliationCountry: async () => null, subject }).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(HttpError);
    expect((denied as HttpError).status).toBe(403);
    expect((denied as HttpError).code).toBe('geo_restricted');
    expect(warnings).toEqual([
      {
        message: 'geographic restriction denied a request',
        fields: { projectId: 'p-1', userId: 'u-1', basis: 'ip', ipCountry: 'US', affiliationCountry: null, reason: 'country_not_allowed' },
      },
    ]);
    expect(JSON.stringify(warnings)).not.toContain('8.8.8.8');

    const vpn = await geo.enforce({ request: fromProxy('80.128.0.1'), policy, affiliationCountry: async () => null, subject }).catch((e: unknown) => e);
    expect((vpn as HttpError).code).toBe('geo_restricted');
    expect(warnings[1]?.fields?.['reason']).toBe('vpn');
  });

  it('locates a request once: its IP country and whether it comes through a VPN network', () => {
    const geo = geoServiceFromConfig(loadConfig({ CAIRN_TRUSTED_PROXIES: '127.0.0.1', CAIRN_VPN_NETWORKS: '80.128.0.0/24' }), capturingLogger().logger);
    expect(geo.locate(fromProxy('8.8.8.8'))).toEqual({ ipCountry: 'US', viaVpn: false });
    expect(geo.locate(fromProxy('80.128.0.1'))).toEqual({ ipCountry: 'DE', viaVpn: true });
    expect(geo.locate(fromProxy('10.1.2.3'))).toEqual({ ipCountry: null, viaVpn: false });
  });

  it('reads the affiliation only when the basis needs it', async () => {
    const { logger } = capturingLogger();
    const geo = geoServiceFromConfig(loadConfig({}), logger);
    let asked = 0;
    const affiliationCountry = async () => {
      asked += 1;
      return 'DE';
    };
    await geo.enforce({ request: fromProxy('8.8.8.8'), policy: { ...policy, basis: 'affiliation', blockVpn: false }, affiliationCountry, subject });
    expect(asked).toBe(1);
    // The socket peer is loopback, so the IP country is unknown and fail-closed denies.
    await expect(geo.enforce({ request: fromProxy('8.8.8.8'), policy, affiliationCountry, subject })).rejects.toBeInstanceOf(HttpError);
    expect(asked).toBe(1);
  });

  it('reads VPN networks from a file and an operator database from CAIRN_GEOIP_DB', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cairn-geo-'));
    const file = path.join(dir, 'vpn.txt');
    writeFileSync(file, '# exits\n198.51.100.0/24\n2001:db8::/32 # v6\n');
    const geo = geoServiceFromConfig(loadConfig({ CAIRN_VPN_NETWORKS: file }), capturingLogger().logger);
    expect(geo.isVpn(parseIpAddress('198.51.100.20'))).toBe(true);
    expect(geo.isVpn(parseIpAddress('198.51.101.20'))).toBe(false);
    expect(() => geoServiceFromConfig(loadConfig({ CAIRN_VPN_NETWORKS: path.join(dir, 'missing.txt') }), capturingLogger().logger)).toThrow(/no such file/);
    expect(() => geoServiceFromConfig(loadConfig({ CAIRN_GEOIP_DB: path.join(dir, 'missing.mmdb') }), capturingLogger().logger)).toThrow(/GeoIP database/);
  });

  it('refuses bad network lists in the configuration, naming the variable', () => {
    expect(() => loadConfig({ CAIRN_TRUSTED_PROXIES: '127.0.0.1,proxy.internal' })).toThrow(/CAIRN_TRUSTED_PROXIES.*proxy\.internal/);
    expect(() => loadConfig({ CAIRN_VPN_NETWORKS: '10.0.0.0/8,nonsense' })).toThrow(/CAIRN_VPN_NETWORKS/);
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(loadConfig({ CAIRN_VPN_NETWORKS: '10.0.0.0/8, ::1' })).toMatchObject({ vpnNetworks: ['10.0.0.0/8', '::1'], vpnNetworksFile: undefined });
  });
});
