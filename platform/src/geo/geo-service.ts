import { existsSync, readFileSync } from 'node:fs';
import type { Config } from '../config/config.ts';
import { HttpError } from '../http/http-error.ts';
import type { Logger } from '../logging/logger.ts';
import { resolveClientAddress, type ClientRequest } from './client-address.ts';
import { bundledCountryDatabasePath, noCountryLookup, openCountryDatabase, type CountryLookup } from './country-database.ts';
import { basisUsesAffiliation, evaluateGeoPolicy, type GeoDecision, type GeoFacts, type GeoPolicy } from './geo-policy.ts';
import type { IpAddress } from './ip-address.ts';
import { createNetworkList, emptyNetworkList, splitNetworkList, type NetworkList } from './networks.ts';

export type GeoCheck = {
  readonly request: ClientRequest;
  readonly policy: GeoPolicy;
  /** Read only when the basis needs it. */
  readonly affiliationCountry: () => Promise<string | null>;
  /** Ids only: denials are logged without addresses or other personal data. */
  readonly subject: { readonly projectId: string; readonly userId: string | null };
};

export type GeoService = {
  clientAddress(request: ClientRequest): IpAddress | null;
  countryOf(address: IpAddress | null): string | null;
  isVpn(address: IpAddress | null): boolean;
  /** What the request says of the caller's place, resolved once to be judged against any number of policies. */
  locate(request: ClientRequest): GeoLocation;
  /** Evaluates the policy for this request; a denial is logged and thrown as 403 `geo_restricted`. */
  enforce(check: GeoCheck): Promise<void>;
};

export type GeoLocation = Omit<GeoFacts, 'affiliationCountry'>;

export type GeoServiceOptions = {
  readonly countries: CountryLookup;
  readonly trustedProxies: NetworkList;
  readonly vpnNetworks: NetworkList;
  readonly logger: Logger;
};

export const geoRestricted = () =>
  new HttpError(403, 'geo_restricted', 'This project may not be accessed from your location or network.');

export function createGeoService(options: GeoServiceOptions): GeoService {
  const { countries, trustedProxies, vpnNetworks, logger } = options;
  const service: GeoService = {
    clientAddress: (request) => resolveClientAddress(request, trustedProxies),
    countryOf: (address) => (address ? countries.countryOf(address) : null),
    isVpn: (address) => (address ? vpnNetworks.contains(address) : false),
    locate(request) {
      const address = service.clientAddress(request);
      return { ipCountry: service.countryOf(address), viaVpn: service.isVpn(address) };
    },
    async enforce({ request, policy, affiliationCountry, subject }) {
      if (!policy.enabled) return;
      const facts: GeoFacts = {
        ...service.locate(request),
        affiliationCountry: basisUsesAffiliation(policy.basis) ? await affiliationCountry() : null,
      };
      const decision: GeoDecision = evaluateGeoPolicy(policy, facts);
      if (decision.allowed) return;
      logger.warn('geographic restriction denied a request', {
        projectId: subject.projectId,
        userId: subject.userId,
        basis: policy.basis,
        ipCountry: facts.ipCountry,
        affiliationCountry: facts.affiliationCountry,
        reason: decision.reason,
      });
      throw geoRestricted();
    },
  };
  return service;
}

/** Without configuration nothing is trusted and no country is known (fail-closed policies deny). */
export function unconfiguredGeoService(logger: Logger): GeoService {
  return createGeoService({ countries: noCountryLookup, trustedProxies: emptyNetworkList, vpnNetworks: emptyNetworkList, logger });
}

/** CAIRN_VPN_NETWORKS is a list of networks, or the path of a file with one per line. */
function vpnNetworksFrom(config: Config): NetworkList {
  if (config.vpnNetworksFile === undefined) return createNetworkList(config.vpnNetworks);
  if (!existsSync(config.vpnNetworksFile)) throw new Error(`CAIRN_VPN_NETWORKS: no such file ${config.vpnNetworksFile}, and not a list of networks`);
  try {
    return createNetworkList(splitNetworkList(readFileSync(config.vpnNetworksFile, 'utf8')));
  } catch (error) {
    throw new Error(`CAIRN_VPN_NETWORKS (${config.vpnNetworksFile}): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** Opened once per process from the configuration; a bad database path or list stops the start. */
export function geoServiceFromConfig(config: Config, logger: Logger): GeoService {
  return createGeoService({
    countries: openCountryDatabase(config.geoipDbPath ?? bundledCountryDatabasePath()),
    trustedProxies: createNetworkList(config.trustedProxies),
    vpnNetworks: vpnNetworksFrom(config),
    logger,
  });
}
