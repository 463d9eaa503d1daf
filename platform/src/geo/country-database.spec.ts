import { describe, expect, it } from 'vitest';
import { bundledCountryDatabasePath, countryOfRecord, openCountryDatabase } from './country-database.ts';
import { parseIpAddress } from './ip-address.ts';

describe('country database', () => {
  const database = openCountryDatabase(bundledCountryDatabasePath());
  const country = (text: string) => {
    const address = parseIpAddress(text);
    if (!address) throw new Error(`bad test address ${text}`);
    return database.countryOf(address);
  };

  it('maps public addresses of the bundled database to countries', () => {
    expect(country('80.128.0.1')).toBe('DE');
    expect(country('::ffff:80.128.0.1')).toBe('DE');
    expect(country('8.8.8.8')).toBe('US');
    expect(country('2003::1')).toBe('DE');
  });

  it('knows no country for special-purpose addresses, whatever the database says', () => {
    // The bundled database maps 192.168.0.0/16 and the documentation ranges to a country.
    for (const text of ['10.1.2.3', '192.168.1.1', '127.0.0.1', '100.64.0.1', '203.0.113.5', '::1', 'fd00::1', '2001:db8::1', 'fe80::1']) {
      expect(country(text)).toBeNull();
    }
  });

  it('reads the record layouts of MaxMind, DB-IP and ip-location-db', () => {
    expect(countryOfRecord({ country: { iso_code: 'DE' }, registered_country: { iso_code: 'FR' } })).toBe('DE');
    expect(countryOfRecord({ registered_country: { iso_code: 'FR' } })).toBe('FR');
    expect(countryOfRecord({ country_code: 'us' })).toBe('US');
    expect(countryOfRecord({ continent: { code: 'EU' } })).toBeNull();
    expect(countryOfRecord(null)).toBeNull();
  });

  it('refuses a database that cannot be read, naming it', () => {
    expect(() => openCountryDatabase('/nonexistent/cairn.mmdb')).toThrow(/\/nonexistent\/cairn\.mmdb/);
  });
});
