import { createPrivateKey, createPublicKey, sign, verify, type JsonWebKey } from 'node:crypto';
import { isIP } from 'node:net';
import type { Resources } from '../../runtime/resources.ts';
import { fail, messageOf, ok, warn, type Check } from './check.ts';

const loopback = (host: string) => host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || (isIP(host) === 4 && host.startsWith('127.'));

/**
 * The OAuth issuer is CAIRN_PUBLIC_URL: every token names it and clients discover the
 * server there, so it must be the address clients use, over TLS once it leaves the host.
 * The signing key must sign and verify (a key damaged in the database breaks every sign-in).
 */
export async function oauthChecks(resources: Resources): Promise<Check[]> {
  const checks: Check[] = [];
  const issuer = resources.oauth.provider.issuer;
  const url = new URL(resources.config.publicUrl);
  if (issuer !== resources.config.publicUrl) checks.push(fail('oauth issuer', `${issuer} is not CAIRN_PUBLIC_URL (${resources.config.publicUrl})`, 'restart the services with one CAIRN_PUBLIC_URL'));
  else if (url.protocol !== 'https:' && !loopback(url.hostname)) {
    checks.push(warn('oauth issuer', `${issuer}: plain HTTP on a host other than this one`, 'serve the service behind TLS and set CAIRN_PUBLIC_URL to its https:// address'));
  } else checks.push(ok('oauth issuer', `${issuer}`));

  try {
    const { rows } = await resources.pool.query<{ value: JsonWebKey }>("select value from server_secrets where name = 'oidc_signing_key'");
    const jwk = rows[0]?.value;
    if (!jwk) throw new Error('no signing key is stored yet');
    const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
    const probe = Buffer.from('cairn doctor');
    const signature = sign('sha256', probe, privateKey);
    if (!verify('sha256', probe, createPublicKey(privateKey), signature)) throw new Error('a signature made with it does not verify');
    checks.push(ok('oauth keys', `${String(jwk['alg'] ?? 'RS256')} signing key ${String(jwk['kid'] ?? '')} signs and verifies`));
  } catch (error) {
    checks.push(fail('oauth keys', messageOf(error), 'delete the oidc_signing_key row of server_secrets to make a new key (signs everyone out), or restore it from a backup'));
  }
  return checks;
}
