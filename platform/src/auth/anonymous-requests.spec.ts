import { describe, expect, it } from 'vitest';
import { parseIpAddress } from '../geo/ip-address.ts';
import { budgetKeyOf } from './anonymous-budget.ts';
import { oversizedForm, oversizedQuery, startsSignInState } from './anonymous-requests.ts';

describe('anonymous request bounds', () => {
  it('refuse a query over 4,096 characters, or a name or value over 1,024', () => {
    expect(oversizedQuery('/oauth/authorize')).toBeNull();
    expect(oversizedQuery(`/oauth/authorize?state=${'s'.repeat(1024)}`)).toBeNull();
    expect(oversizedQuery(`/oauth/authorize?state=${'s'.repeat(1025)}`)).toMatch(/1024/);
    expect(oversizedQuery(`/api/docs/?${'n'.repeat(1025)}=1`)).toMatch(/1024/);
    const filler = Array.from({ length: 5 }, (_, i) => `f${i}=${'z'.repeat(900)}`).join('&');
    expect(oversizedQuery(`/oauth/authorize?${filler}`)).toMatch(/4096/);
  });

  it('refuse a form of more than 64 parameters, or one over 1,024 characters once decoded', () => {
    expect(oversizedForm(Array.from({ length: 64 }, (_, i) => `p${i}=1`).join('&'))).toBeNull();
    expect(oversizedForm(Array.from({ length: 65 }, (_, i) => `p${i}=1`).join('&'))).toMatch(/64/);
    // Escapes count as the characters they decode to.
    expect(oversizedForm(`state=${'%41'.repeat(1024)}`)).toBeNull();
    expect(oversizedForm(`state=${'%41'.repeat(1025)}`)).toMatch(/1024/);
  });

  it('tell the requests that may store sign-in state', () => {
    expect(startsSignInState({ method: 'POST', path: '/oauth/par' })).toBe(true);
    expect(startsSignInState({ method: 'GET', path: '/oauth/authorize' })).toBe(true);
    expect(startsSignInState({ method: 'POST', path: '/oauth/authorize' })).toBe(true);
    expect(startsSignInState({ method: 'GET', path: '/oauth/device' })).toBe(true);
    expect(startsSignInState({ method: 'POST', path: '/oauth/device/auth' })).toBe(true);
    expect(startsSignInState({ method: 'POST', path: '/oauth/token' })).toBe(false);
    expect(startsSignInState({ method: 'GET', path: '/oauth/jwks' })).toBe(false);
  });

  it('count an IPv6 /64 as one address, IPv4 addresses one by one', () => {
    const key = (text: string) => budgetKeyOf(parseIpAddress(text));
    expect(key('2001:db8:1:2::1')).toBe(key('2001:db8:1:2:ffff::9'));
    expect(key('2001:db8:1:2::1')).not.toBe(key('2001:db8:1:3::1'));
    expect(key('203.0.113.7')).toBe('203.0.113.7');
    expect(key('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(budgetKeyOf(null)).toBe('unknown');
  });
});
