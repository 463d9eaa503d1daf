import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Reader, type CountryResponse } from 'mmdb-lib';
import type { IpAddress } from './ip-address.ts';
import { specialPurposeNetworks } from './special-addresses.ts';

export type CountryLookup = {
  /** ISO 3166-1 alpha-2 code, or null when the address is in no known country. */
  countryOf(address: IpAddress): string | null;
};

/**
 * The database used when CAIRN_GEOIP_DB is unset: the country database of the npm package
 * @ip-location-db/geo-whois-asn-country-mmdb (GeoFeed + WHOIS + ASN, CC BY 4.0 by NRO),
 * installed with the project; nothing is downloaded at install or run time.
 */
export function bundledCountryDatabasePath(): string {
  return createRequire(import.meta.url).resolve('@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb');
}

const countryPattern = /^[A-Z]{2}$/;

function field(record: unknown, ...path: string[]): unknown {
  let current = record;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/**
 * Reads the country from the record layouts in use: MaxMind's GeoIP2/GeoLite2 Country and
 * City (`country.iso_code`, else `registered_country.iso_code`), DB-IP's (the same), and
 * ip-location-db's (`country_code`).
 */
export function countryOfRecord(record: unknown): string | null {
  for (const candidate of [field(record, 'country', 'iso_code'), field(record, 'country_code'), field(record, 'registered_country', 'iso_code')]) {
    if (typeof candidate === 'string' && countryPattern.test(candidate.toUpperCase())) return candidate.toUpperCase();
  }
  return null;
}

/** Opens a MaxMind-format (.mmdb) database; the whole file is read once, at start. */
export function openCountryDatabase(path: string): CountryLookup {
  let reader: Reader<CountryResponse>;
  try {
    reader = new Reader<CountryResponse>(readFileSync(path));
  } catch (error) {
    throw new Error(`cannot open the GeoIP database ${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return {
    countryOf(address) {
      if (specialPurposeNetworks.contains(address)) return null;
      try {
        return countryOfRecord(reader.get(address.text));
      } catch {
        // An IPv4-only database asked for an IPv6 address: no country known.
        return null;
      }
    },
  };
}

/** No database: every country is unknown (`geobound_fail_closed` then decides). */
export const noCountryLookup: CountryLookup = { countryOf: () => null };
