import { describe, expect, it } from 'vitest';
import { createNetworkList, emptyNetworkList } from '../geo/networks.ts';
import { checkWebhookTarget, WebhookTargetRefused, type Resolve } from './target-policy.ts';

const strict = { allowedNetworks: emptyNetworkList, allowHttp: false };
const names: Record<string, string[]> = {
  'hooks.example.org': ['93.184.215.14'],
  'metadata.attacker.test': ['169.254.169.254'],
  'inside.attacker.test': ['10.1.2.3'],
  'loop.attacker.test': ['::1'],
  'mapped.attacker.test': ['::ffff:127.0.0.1'],
  'split.attacker.test': ['93.184.215.14', '192.168.1.1'],
};
const resolve: Resolve = async (host) => {
  const found = names[host];
  if (!found) throw new Error('ENOTFOUND');
  return found;
};

describe('webhook targets', () => {
  it('pass a public https URL, pinned to the address it resolved to', async () => {
    const target = await checkWebhookTarget('https://hooks.example.org/in', strict, resolve);
    expect(target.address.text).toBe('93.184.215.14');
  });

  it.each([
    'https://127.0.0.1/',
    'https://169.254.169.254/latest/meta-data/',
    'https://10.0.0.1/',
    'https://172.16.5.4/',
    'https://192.168.0.10/',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://224.0.0.1/',
    'https://[::1]/',
    'https://[::]/',
    'https://[fe80::1]/',
    'https://[fd00::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://[64:ff9b::7f00:1]/',
    'https://[::127.0.0.1]/',
    'https://[::a9fe:a9fe]/',
    'https://[::ffff:0:7f00:1]/',
    'https://[::ffff:0:a00:1]/',
    'https://2130706433/',
    'https://0177.0.0.1/',
    'https://0x7f.1/',
    'https://127.0.0.1./',
    'https://metadata.attacker.test/',
    'https://inside.attacker.test/',
    'https://loop.attacker.test/',
    'https://mapped.attacker.test/',
    'https://split.attacker.test/',
  ])('refuse %s', async (url) => {
    await expect(checkWebhookTarget(url, strict, resolve)).rejects.toBeInstanceOf(WebhookTargetRefused);
  });

  it('do not tell which internal address a name resolved to', async () => {
    await expect(checkWebhookTarget('https://inside.attacker.test/', strict, resolve)).rejects.toThrow(/^The host inside\.attacker\.test resolves to a loopback, private, link-local or other special-purpose address, which/);
    await expect(checkWebhookTarget('https://inside.attacker.test/', strict, resolve)).rejects.not.toThrow(/10\.1\.2\.3/);
  });

  it('refuse http, credentials, other schemes and names that do not resolve', async () => {
    await expect(checkWebhookTarget('http://hooks.example.org/', strict, resolve)).rejects.toThrow(/must be https/);
    await expect(checkWebhookTarget('https://u:p@hooks.example.org/', strict, resolve)).rejects.toThrow(/credentials/);
    await expect(checkWebhookTarget('file:///etc/passwd', strict, resolve)).rejects.toThrow(/must be https/);
    await expect(checkWebhookTarget('https://nowhere.test/', strict, resolve)).rejects.toThrow(/could not be resolved/);
  });

  it('let the allowed networks and plain http through when configured', async () => {
    const local = { allowedNetworks: createNetworkList(['127.0.0.0/8']), allowHttp: true };
    expect((await checkWebhookTarget('http://127.0.0.1:9999/in', local, resolve)).address.text).toBe('127.0.0.1');
    await expect(checkWebhookTarget('http://10.0.0.1/', local, resolve)).rejects.toBeInstanceOf(WebhookTargetRefused);
  });
});
