import { bundledCountryDatabasePath, openCountryDatabase, parseIpAddress } from '@cairn/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type Project, type User } from '../support/api.ts';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';
import { addMember, createCountrySet, createProject, join, organization, patchProject } from './projects-fixtures.ts';

/** Addresses whose country the bundled database knows (checked in the first test). */
const ip = { DE: '80.128.0.1', US: '8.8.8.8', vpnInDE: '217.0.0.5', private: '10.1.2.3' } as const;

// Supertest connects from loopback: trusting it makes X-Forwarded-For the client's address.
const geoConfig = { CAIRN_TRUSTED_PROXIES: '127.0.0.1,::1', CAIRN_VPN_NETWORKS: '217.0.0.0/24' };

describe('the geographic restriction of projects', () => {
  let h: Harness;
  let germanOrganization: string;
  let admin: User;
  let german: User;
  let american: User;
  let unaffiliated: User;
  let systemAdmin: User;
  let outsider: User;

  beforeAll(async () => {
    h = await startHarness('all', geoConfig);
    germanOrganization = await organization(h, 'Forschungszentrum', 'DE');
    const americanOrganization = await organization(h, 'US Lab', 'US');
    const countrylessOrganization = await organization(h, 'Nowhere Lab');
    [admin, german, american, unaffiliated, systemAdmin, outsider] = [
      await h.createUser(),
      await h.createUser(),
      await h.createUser(),
      await h.createUser(),
      await h.createUser({ admin: true }),
      await h.createUser(),
    ];
    await join(h, germanOrganization, admin);
    await join(h, germanOrganization, german);
    // The American's first membership is the US lab; a later one in the project's
    // (German) organization would win, see the affiliation test.
    await join(h, americanOrganization, american);
    await join(h, countrylessOrganization, unaffiliated);
  });
  afterAll(async () => h.close());

  /** A project with the German, the American and the unaffiliated user as members, under this restriction. */
  async function restricted(policy: Record<string, unknown>): Promise<Project> {
    const project = await createProject(h, admin, germanOrganization, 'Restricted');
    for (const user of [german, american, unaffiliated]) await addMember(h, admin, project.id, user, 'member');
    // Created without a restriction, so this PATCH is not yet subject to it.
    return patchProject(h, admin, project.id, { geobound_enabled: true, ...policy });
  }

  const get = (caller: User, projectId: string, from?: string) => {
    const req = request(h.queryApp).get(`/api/projects/${projectId}/`).set(bearer(caller));
    return from === undefined ? req : req.set('X-Forwarded-For', from);
  };
  const status = async (caller: User, projectId: string, from?: string) => (await get(caller, projectId, from)).status;

  it('uses addresses the bundled database places in Germany and the United States', () => {
    const countries = openCountryDatabase(bundledCountryDatabasePath());
    const country = (text: string) => countries.countryOf(parseIpAddress(text) ?? { version: 4, value: 0n, text: '0.0.0.0' });
    expect([country(ip.DE), country(ip.US), country(ip.vpnInDE), country(ip.private)]).toEqual(['DE', 'US', 'DE', null]);
  });

  it('denies with 403 geo_restricted and the error shape', async () => {
    const project = await restricted({ geobound_basis: 'ip', geobound_allowed_countries: ['DE'] });
    const res = await get(german, project.id, ip.US).expect(403);
    expect(res.body).toEqual({ status: 403, code: 'geo_restricted', detail: expect.any(String) });
  });

  it('on basis ip, judges the country of the client address', async () => {
    const project = await restricted({ geobound_basis: 'ip', geobound_allowed_countries: ['DE'] });
    expect(await status(german, project.id, ip.DE)).toBe(200);
    expect(await status(american, project.id, ip.DE)).toBe(200);
    expect(await status(german, project.id, ip.US)).toBe(403);
    expect(await status(german, project.id, `${ip.US}, ${ip.DE}`)).toBe(200);
  });

  it('on basis affiliation, judges the country of the caller’s organization, the project’s own first', async () => {
    const project = await restricted({ geobound_basis: 'affiliation', geobound_allowed_countries: ['DE'] });
    expect(await status(german, project.id, ip.US)).toBe(200);
    expect(await status(american, project.id, ip.DE)).toBe(403);
    expect(await status(unaffiliated, project.id, ip.DE)).toBe(403);
    // Joining the project's organization (a German one) makes it the affiliation that counts.
    const convert = await h.createUser();
    await join(h, (await organization(h, 'Another US Lab', 'US')), convert);
    await addMember(h, admin, project.id, convert, 'viewer');
    expect(await status(convert, project.id, ip.DE)).toBe(403);
    await join(h, germanOrganization, convert);
    expect(await status(convert, project.id, ip.US)).toBe(200);
  });

  it('on basis ip_or_affiliation, lets either country pass', async () => {
    const project = await restricted({ geobound_basis: 'ip_or_affiliation', geobound_allowed_countries: ['DE'] });
    expect(await status(american, project.id, ip.DE)).toBe(200);
    expect(await status(german, project.id, ip.US)).toBe(200);
    expect(await status(american, project.id, ip.US)).toBe(403);
  });

  it('on basis ip_and_affiliation, needs both countries to pass', async () => {
    const project = await restricted({ geobound_basis: 'ip_and_affiliation', geobound_allowed_countries: ['DE'] });
    expect(await status(german, project.id, ip.DE)).toBe(200);
    expect(await status(german, project.id, ip.US)).toBe(403);
    expect(await status(american, project.id, ip.DE)).toBe(403);
  });

  it('decides unknown countries by geobound_fail_closed', async () => {
    const closed = await restricted({ geobound_basis: 'ip', geobound_allowed_countries: ['DE'], geobound_fail_closed: true });
    expect(await status(german, closed.id, ip.private)).toBe(403);
    // No X-Forwarded-For: the client is the loopback peer, in no country.
    expect(await status(german, closed.id)).toBe(403);
    const open = await restricted({ geobound_basis: 'ip', geobound_allowed_countries: ['DE'], geobound_fail_closed: false });
    expect(await status(german, open.id, ip.private)).toBe(200);
    expect(await status(german, open.id, ip.US)).toBe(403);
    const openAffiliation = await restricted({ geobound_basis: 'affiliation', geobound_allowed_countries: ['DE'], geobound_fail_closed: false });
    expect(await status(unaffiliated, openAffiliation.id, ip.US)).toBe(200);
  });

  it('blocks the configured VPN networks when asked to, whatever the country', async () => {
    const blocking = await restricted({ geobound_basis: 'ip', geobound_allowed_countries: ['DE'], geobound_block_vpn: true });
    expect(await status(german, blocking.id, ip.vpnInDE)).toBe(403);
    expect(await status(german, blocking.id, ip.DE)).toBe(200);
    const notBlocking = await restricted({ geobound_basis: 'ip', geobound_allowed_countries: ['DE'], geobound_block_vpn: false });
    expect(await status(german, notBlocking.id, ip.vpnInDE)).toBe(200);
  });

  it('combines the allowed list with the allowed set and subtracts the denied set, following set changes at once', async () => {
    const organizationAdmin = await h.createUser();
    await join(h, germanOrganization, organizationAdmin, 'admin');
    const allowedSet = await createCountrySet(h, organizationAdmin, germanOrganization, 'Transatlantic', 'allowed', ['US']);
    const project = await restricted({ geobound_basis: 'ip', geobound_allowed_countries: ['DE'], geobound_allowed_country_set: allowedSet.id });
    expect(await status(german, project.id, ip.US)).toBe(200);
    expect(await status(german, project.id, ip.DE)).toBe(200);

    await request(h.commandApp).patch(`/api/country-sets/${allowedSet.id}/`).set(bearer(organizationAdmin)).send({ countries: ['FR'] }).expect(200);
    expect(await status(german, project.id, ip.US)).toBe(403);

    const deniedSet = await createCountrySet(h, organizationAdmin, germanOrganization, 'No Germany', 'denied', ['DE']);
    const onlyDenied = await restricted({ geobound_basis: 'ip', geobound_allowed_countries: [], geobound_denied_country_set: deniedSet.id });
    expect(await status(american, onlyDenied.id, ip.US)).toBe(200);
    expect(await status(american, onlyDenied.id, ip.DE)).toBe(403);
  });

  it('does not exempt system administrators', async () => {
    const project = await restricted({ geobound_basis: 'ip', geobound_allowed_countries: ['DE'] });
    expect(await status(systemAdmin, project.id, ip.US)).toBe(403);
    expect(await status(systemAdmin, project.id, ip.DE)).toBe(200);
  });

  it('guards every route under the project, before any role check, and the list', async () => {
    const project = await restricted({ geobound_basis: 'ip', geobound_allowed_countries: ['DE'] });
    const viewer = await h.createUser();
    await request(h.commandApp).post(`/api/projects/${project.id}/members/`).set(bearer(admin)).set('X-Forwarded-For', ip.DE).send({ user_id: viewer.id, role: 'viewer' }).expect(201);
    const from = { 'X-Forwarded-For': ip.US };
    const w = () => request(h.commandApp);
    const r = () => request(h.queryApp);
    const attempts = [
      r().get(`/api/projects/${project.id}/`).set(bearer(admin)).set(from),
      w().patch(`/api/projects/${project.id}/`).set(bearer(admin)).set(from).send({ geobound_enabled: false }),
      w().delete(`/api/projects/${project.id}/`).set(bearer(admin)).set(from),
      r().get(`/api/projects/${project.id}/members/`).set(bearer(admin)).set(from),
      w().post(`/api/projects/${project.id}/members/`).set(bearer(admin)).set(from).send({ user_id: outsider.id }),
      w().patch(`/api/projects/${project.id}/members/${viewer.id}/`).set(bearer(admin)).set(from).send({ role: 'member' }),
      w().delete(`/api/projects/${project.id}/members/${viewer.id}/`).set(bearer(admin)).set(from),
      w().post(`/api/projects/${project.id}/star/`).set(bearer(admin)).set(from),
      w().delete(`/api/projects/${project.id}/star/`).set(bearer(admin)).set(from),
      // A viewer asking to manage learns of the restriction, not of the role.
      w().patch(`/api/projects/${project.id}/`).set(bearer(viewer)).set(from).send({ name: 'x' }),
    ];
    for (const attempt of attempts) {
      const res = await attempt;
      expect([res.status, res.body.code]).toEqual([403, 'geo_restricted']);
    }
    // Nothing changed.
    const after = (await get(admin, project.id, ip.DE).expect(200)).body as Project;
    expect(after).toMatchObject({ geobound_enabled: true, member_count: 5, is_starred: false });

    // A caller who may not see the project gets 404 first, wherever they are.
    expect(await status(outsider, project.id, ip.US)).toBe(404);
    // The list leaves the project out where the restriction denies, and shows it where it allows.
    const listedAway = await request(h.queryApp).get('/api/projects/').set(bearer(admin)).set(from).expect(200);
    expect((listedAway.body as Project[]).map((p) => p.id)).not.toContain(project.id);
    const listedHome = await request(h.queryApp).get('/api/projects/').set(bearer(admin)).set('X-Forwarded-For', ip.DE).expect(200);
    expect((listedHome.body as Project[]).map((p) => p.id)).toContain(project.id);

    // From an allowed place the restriction is switched off, and the project is open again.
    await request(h.commandApp).patch(`/api/projects/${project.id}/`).set(bearer(admin)).set('X-Forwarded-For', ip.DE).send({ geobound_enabled: false }).expect(200);
    expect(await status(admin, project.id, ip.US)).toBe(200);
  });

  it('keeps out of the list exactly the restricted projects that deny the request, each judged on its own policy', async () => {
    const organizationAdmin = await h.createUser();
    await join(h, germanOrganization, organizationAdmin, 'admin');
    const usOnly = await createCountrySet(h, organizationAdmin, germanOrganization, 'Only the US', 'allowed', ['US']);
    const made: Record<string, Project> = {};
    const policies: Record<string, Record<string, unknown> | null> = {
      open: null,
      byIp: { geobound_basis: 'ip', geobound_allowed_countries: ['DE'] },
      byAffiliation: { geobound_basis: 'affiliation', geobound_allowed_countries: ['DE'] },
      bySet: { geobound_basis: 'ip', geobound_allowed_country_set: usOnly.id },
      noVpn: { geobound_basis: 'ip', geobound_block_vpn: true },
    };
    for (const [name, policy] of Object.entries(policies)) {
      const project = await createProject(h, admin, germanOrganization, `Listed ${name}`);
      for (const user of [german, american]) await addMember(h, admin, project.id, user, 'member');
      made[name] = policy ? await patchProject(h, admin, project.id, { geobound_enabled: true, ...policy }) : project;
    }
    const listed = async (caller: User, from: string) => {
      const res = await request(h.queryApp).get('/api/projects/').query({ q: 'Listed ' }).set(bearer(caller)).set('X-Forwarded-For', from).expect(200);
      const ids = (res.body as Project[]).map((p) => p.id);
      return Object.keys(made).filter((name) => ids.includes(made[name]?.id ?? ''));
    };
    expect(await listed(german, ip.DE)).toEqual(['open', 'byIp', 'byAffiliation', 'noVpn']);
    expect(await listed(german, ip.US)).toEqual(['open', 'byAffiliation', 'bySet', 'noVpn']);
    expect(await listed(german, ip.vpnInDE)).toEqual(['open', 'byIp', 'byAffiliation']);
    expect(await listed(american, ip.DE)).toEqual(['open', 'byIp', 'noVpn']);
    // The rows shown are whole, as GET answers them from there.
    const shown = await request(h.queryApp).get('/api/projects/').query({ q: 'Listed byIp' }).set(bearer(german)).set('X-Forwarded-For', ip.DE).expect(200);
    const single = await get(german, made['byIp']?.id ?? '', ip.DE).expect(200);
    expect(shown.body).toEqual([single.body]);
  });

  it('takes the project’s organization as the affiliation even when it has no country, and fail_closed decides', async () => {
    const countryless = await organization(h, 'Stateless Lab');
    const founder = await h.createUser();
    // An earlier membership in a German organization must not stand in for the project's own.
    await join(h, germanOrganization, founder);
    await join(h, countryless, founder);
    const closed = await createProject(h, founder, countryless, 'Stateless closed');
    await addMember(h, founder, closed.id, german, 'viewer');
    await patchProject(h, founder, closed.id, { geobound_enabled: true, geobound_basis: 'affiliation', geobound_allowed_countries: ['DE'], geobound_fail_closed: true });
    const open = await createProject(h, founder, countryless, 'Stateless open');
    await patchProject(h, founder, open.id, { geobound_enabled: true, geobound_basis: 'affiliation', geobound_allowed_countries: ['DE'], geobound_fail_closed: false });
    expect(await status(founder, closed.id, ip.DE)).toBe(403);
    expect(await status(founder, open.id, ip.US)).toBe(200);
    const listed = await request(h.queryApp).get('/api/projects/').query({ q: 'Stateless' }).set(bearer(founder)).set('X-Forwarded-For', ip.DE).expect(200);
    expect((listed.body as Project[]).map((p) => p.id)).toEqual([open.id]);
    // A member of the project who is not in its organization keeps the earliest affiliation with a country.
    expect(await status(german, closed.id, ip.US)).toBe(200);
  });

  it('denies everyone while a referenced set is missing from the read model', async () => {
    const organizationAdmin = await h.createUser();
    await join(h, germanOrganization, organizationAdmin, 'admin');
    const set = await createCountrySet(h, organizationAdmin, germanOrganization, 'Will vanish', 'allowed', ['DE']);
    const project = await restricted({ geobound_basis: 'ip', geobound_allowed_country_set: set.id, geobound_fail_closed: false });
    expect(await status(german, project.id, ip.DE)).toBe(200);
    // Deleting through the API is refused while referenced (409); a set lost otherwise fails closed.
    await h.resources.pool.query('delete from country_sets where id = $1', [set.id]);
    expect(await status(german, project.id, ip.DE)).toBe(403);
  });
});

describe.each<Shape>(['split'])('the geographic restriction on both services (%s)', (shape) => {
  let h: Harness;
  let admin: User;
  let project: Project;

  beforeAll(async () => {
    h = await startHarness(shape, geoConfig);
    const organizationId = await organization(h, 'Split Institute', 'DE');
    admin = await h.createUser();
    await join(h, organizationId, admin);
    project = await createProject(h, admin, organizationId, 'Split');
    await patchProject(h, admin, project.id, { geobound_enabled: true, geobound_allowed_countries: ['DE'] });
  });
  afterAll(async () => h.close());

  it('is enforced by the query service and by the command service', async () => {
    await request(h.queryApp).get(`/api/projects/${project.id}/`).set(bearer(admin)).set('X-Forwarded-For', ip.DE).expect(200);
    const read = await request(h.queryApp).get(`/api/projects/${project.id}/`).set(bearer(admin)).set('X-Forwarded-For', ip.US).expect(403);
    expect(read.body.code).toBe('geo_restricted');
    const write = await request(h.commandApp).post(`/api/projects/${project.id}/star/`).set(bearer(admin)).set('X-Forwarded-For', ip.US).expect(403);
    expect(write.body.code).toBe('geo_restricted');
    await request(h.commandApp).post(`/api/projects/${project.id}/star/`).set(bearer(admin)).set('X-Forwarded-For', ip.DE).expect(204);
  });
});

describe('client addresses and untrusted peers', () => {
  it('ignores X-Forwarded-For without trusted proxies, or from a peer that is not one', async () => {
    for (const overrides of [{}, { CAIRN_TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.1' }]) {
      const h = await startHarness('all', overrides);
      try {
        const organizationId = await organization(h, 'Proxy Institute', 'DE');
        const admin = await h.createUser();
        await join(h, organizationId, admin);
        const closed = await createProject(h, admin, organizationId, 'Behind a proxy, fail-closed');
        await patchProject(h, admin, closed.id, { geobound_enabled: true, geobound_allowed_countries: ['DE'], geobound_fail_closed: true });
        const open = await createProject(h, admin, organizationId, 'Behind a proxy, fail-open');
        await patchProject(h, admin, open.id, { geobound_enabled: true, geobound_allowed_countries: ['DE'], geobound_fail_closed: false });
        // The claim of a German address is not believed: the client is the loopback peer, in no country.
        const denied = await request(h.queryApp).get(`/api/projects/${closed.id}/`).set(bearer(admin)).set('X-Forwarded-For', ip.DE).expect(403);
        expect(denied.body.code).toBe('geo_restricted');
        // Nor is the claim of an American one: where unknown countries pass, it passes.
        await request(h.queryApp).get(`/api/projects/${open.id}/`).set(bearer(admin)).set('X-Forwarded-For', ip.US).expect(200);
      } finally {
        await h.close();
      }
    }
  });
});
