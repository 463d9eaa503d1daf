/** Interface 2.2 `geobound_basis`: IP country, affiliation country, either, both. */
export type GeoBasis = 'ip' | 'affiliation' | 'ip_or_affiliation' | 'ip_and_affiliation';

/** A project's restriction with its named sets resolved to their countries. */
export type GeoPolicy = {
  readonly enabled: boolean;
  readonly basis: GeoBasis;
  /** `geobound_allowed_countries` and the allowed set together; empty: every country not denied. */
  readonly allowedCountries: readonly string[];
  /** The denied set's countries. */
  readonly deniedCountries: readonly string[];
  readonly blockVpn: boolean;
  readonly failClosed: boolean;
  /** A referenced set is gone: the policy cannot be known, so it denies. */
  readonly incomplete: boolean;
};

/** What is known of the caller; null country: unknown. */
export type GeoFacts = {
  readonly ipCountry: string | null;
  readonly affiliationCountry: string | null;
  readonly viaVpn: boolean;
};

export type GeoDenialReason = 'vpn' | 'country_not_allowed' | 'country_unknown' | 'policy_incomplete';

export type GeoDecision = { readonly allowed: true } | { readonly allowed: false; readonly reason: GeoDenialReason };

type Verdict = 'pass' | 'fail' | 'unknown';

const usesIp = (basis: GeoBasis) => basis !== 'affiliation';
const usesAffiliation = (basis: GeoBasis) => basis !== 'ip';

export function basisUsesAffiliation(basis: GeoBasis): boolean {
  return usesAffiliation(basis);
}

function verdict(country: string | null, policy: GeoPolicy): Verdict {
  if (country === null) return 'unknown';
  if (policy.deniedCountries.includes(country)) return 'fail';
  if (policy.allowedCountries.length > 0 && !policy.allowedCountries.includes(country)) return 'fail';
  return 'pass';
}

/**
 * The geographic restriction of a project (docs/projects.md), a pure function. A country
 * passes when it is in no denied set and either no allowed countries are configured or it
 * is among them. An unknown country passes only when the policy is not fail-closed. The
 * basis combines the verdicts on the IP country and the affiliation country; VPN blocking
 * applies whatever the basis.
 */
export function evaluateGeoPolicy(policy: GeoPolicy, facts: GeoFacts): GeoDecision {
  if (!policy.enabled) return { allowed: true };
  if (policy.incomplete) return { allowed: false, reason: 'policy_incomplete' };
  if (policy.blockVpn && facts.viaVpn) return { allowed: false, reason: 'vpn' };

  const verdicts: Verdict[] = [];
  if (usesIp(policy.basis)) verdicts.push(verdict(facts.ipCountry, policy));
  if (usesAffiliation(policy.basis)) verdicts.push(verdict(facts.affiliationCountry, policy));
  const passes = (v: Verdict) => v === 'pass' || (v === 'unknown' && !policy.failClosed);

  const allowed = policy.basis === 'ip_or_affiliation' ? verdicts.some(passes) : verdicts.every(passes);
  if (allowed) return { allowed: true };
  // A definite wrong country is the stronger reason to report than an unknown one.
  return { allowed: false, reason: verdicts.includes('fail') ? 'country_not_allowed' : 'country_unknown' };
}
