import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';

/** With the default configuration: webhooks reach public https addresses only (docs/changes.md, "Webhooks"). */
describe('webhook targets', () => {
  let h: Harness;
  let member: User;

  beforeAll(async () => {
    h = await startHarness('all');
    member = await h.createUser();
  });
  afterAll(async () => h.close());

  const create = (url: string) => request(h.commandApp).post('/api/webhooks/').set(bearer(member)).send({ url });

  it.each([
    ['loopback', 'https://127.0.0.1/hook'],
    ['loopback, elsewhere in 127/8', 'https://127.1.2.3:8443/hook'],
    ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data/'],
    ['10/8', 'https://10.0.0.5/hook'],
    ['192.168/16', 'https://192.168.1.1/hook'],
    ['CGNAT', 'https://100.64.1.1/hook'],
    ['the unspecified address', 'https://0.0.0.0/hook'],
    ['IPv6 loopback', 'https://[::1]/hook'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook'],
    ['IPv6 link-local', 'https://[fe80::1]/hook'],
    ['a unique local address', 'https://[fd12:3456::1]/hook'],
    ['a name that resolves to loopback', 'https://localhost/hook'],
  ])('refuse %s at creation', async (_name, url) => {
    const res = await create(url);
    expect([res.status, res.body]).toMatchObject([400, { code: 'validation_error', errors: { url: [expect.stringMatching(/special-purpose|could not be resolved/)] } }]);
  });

  it('refuse plain http, credentials in the URL, and what is not a URL', async () => {
    for (const [url, message] of [
      ['http://93.184.215.14/hook', /must be https/],
      ['https://user:pass@93.184.215.14/hook', /credentials/],
      ['not a url', /absolute URL/],
    ] as const) {
      const res = await create(url);
      expect([res.status, (res.body as { errors: { url: string[] } }).errors.url[0]], url).toEqual([400, expect.stringMatching(message)]);
    }
  });

  it('refuse a URL changed to a refused target, and store nothing', async () => {
    // A public address literal needs no name resolution: the check passes without the network.
    const created = await create('https://93.184.215.14/hook');
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = (created.body as { id: string }).id;
    const res = await request(h.commandApp).patch(`/api/webhooks/${id}/`).set(bearer(member)).send({ url: 'https://169.254.169.254/' });
    expect([res.status, (res.body as { code: string }).code]).toEqual([400, 'validation_error']);
    const read = await request(h.queryApp).get(`/api/webhooks/${id}/`).set(bearer(member)).expect(200);
    expect((read.body as { url: string }).url).toBe('https://93.184.215.14/hook');
  });
});
