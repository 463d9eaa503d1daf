import { describe, expect, it } from 'vitest';
import { evaluateGeoPolicy, type GeoBasis, type GeoPolicy } from './geo-policy.ts';

const policy = (overrides: Partial<GeoPolicy> = {}): GeoPolicy => ({
  enabled: true,
  basis: 'ip',
  allowedCountries: ['DE'],
  deniedCountries: [],
  blockVpn: false,
  failClosed: true,
  incomplete: false,
  ...overrides,
});
const facts = (ipCountry: string | null, affiliationCountry: string | null = null, viaVpn = false) => ({ ipCountry, affiliationCountry, viaVpn });
const allowed = (p: GeoPolicy, f: ReturnType<typeof facts>) => evaluateGeoPolicy(p, f).allowed;

describe('geographic policy', () => {
  it('allows everything while disabled', () => {
    expect(allowed(policy({ enabled: false, incomplete: true, blockVpn: true }), facts(null, null, true))).toBe(true);
  });

  it('on ip: judges the IP country only', () => {
    expect(allowed(policy(), facts('DE', 'US'))).toBe(true);
    expect(evaluateGeoPolicy(policy(), facts('US', 'DE'))).toEqual({ allowed: false, reason: 'country_not_allowed' });
  });

  it('on affiliation: judges the affiliation country only', () => {
    expect(allowed(policy({ basis: 'affiliation' }), facts('US', 'DE'))).toBe(true);
    expect(allowed(policy({ basis: 'affiliation' }), facts('DE', 'US'))).toBe(false);
  });

  it('on ip_or_affiliation: either country may pass', () => {
    const p = policy({ basis: 'ip_or_affiliation' });
    expect(allowed(p, facts('DE', 'US'))).toBe(true);
    expect(allowed(p, facts('US', 'DE'))).toBe(true);
    expect(allowed(p, facts('US', 'FR'))).toBe(false);
  });

  it('on ip_and_affiliation: both countries must pass', () => {
    const p = policy({ basis: 'ip_and_affiliation' });
    expect(allowed(p, facts('DE', 'DE'))).toBe(true);
    expect(allowed(p, facts('DE', 'US'))).toBe(false);
    expect(allowed(p, facts('US', 'DE'))).toBe(false);
  });

  it('denies countries of the denied set even when allowed, and allows any other when nothing is allowed explicitly', () => {
    expect(allowed(policy({ allowedCountries: ['DE', 'US'], deniedCountries: ['US'] }), facts('US'))).toBe(false);
    expect(allowed(policy({ allowedCountries: [], deniedCountries: ['US'] }), facts('FR'))).toBe(true);
    expect(allowed(policy({ allowedCountries: [], deniedCountries: ['US'] }), facts('US'))).toBe(false);
  });

  it('decides unknown countries by fail_closed', () => {
    for (const basis of ['ip', 'affiliation', 'ip_and_affiliation', 'ip_or_affiliation'] as GeoBasis[]) {
      expect(evaluateGeoPolicy(policy({ basis }), facts(null, null))).toEqual({ allowed: false, reason: 'country_unknown' });
      expect(allowed(policy({ basis, failClosed: false }), facts(null, null))).toBe(true);
    }
    // An unknown IP country does not rescue a definitely wrong affiliation when both must pass.
    expect(evaluateGeoPolicy(policy({ basis: 'ip_and_affiliation', failClosed: false }), facts(null, 'US'))).toEqual({ allowed: false, reason: 'country_not_allowed' });
    expect(allowed(policy({ basis: 'ip_or_affiliation' }), facts(null, 'DE'))).toBe(true);
  });

  it('blocks VPN networks whatever the basis, only when asked to', () => {
    expect(evaluateGeoPolicy(policy({ blockVpn: true }), facts('DE', null, true))).toEqual({ allowed: false, reason: 'vpn' });
    expect(allowed(policy({ blockVpn: true, basis: 'affiliation' }), facts('DE', 'DE', true))).toBe(false);
    expect(allowed(policy({ blockVpn: false }), facts('DE', null, true))).toBe(true);
  });

  it('denies when a referenced set is gone', () => {
    expect(evaluateGeoPolicy(policy({ incomplete: true, failClosed: false }), facts('DE'))).toEqual({ allowed: false, reason: 'policy_incomplete' });
  });
});
