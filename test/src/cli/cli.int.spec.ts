import { createApp } from '@cairn/cli';
import { projections, startProjector, type Projector } from '@cairn/projections';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.ts';
import { openTestResources, publicUrl } from '../support/harness.ts';
import { runCairn } from '../support/processes.ts';
import type { Resources } from '@cairn/cli';

describe('the cairn command line', () => {
  let env: Record<string, string>;
  let resources: Resources;
  let projector: Projector;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    env = { DATABASE_URL: databaseUrl, CAIRN_PUBLIC_URL: publicUrl, CAIRN_LOG_LEVEL: 'warn' };
    resources = await openTestResources(databaseUrl);
    projector = await startProjector({ db: resources.db, eventStore: resources.eventStore, projections, logger: resources.logger, databaseUrl });
  });
  afterAll(async () => {
    await projector.stop();
    await resources.close();
  });

  const json = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;

  it('creates users, organizations and memberships, and issues working tokens', async () => {
    const admin = await runCairn(['users', 'create', '--email', 'Root@Example.org', '--name', 'Root', '--password', 'correct horse', '--system-admin'], env);
    expect(admin.code).toBe(0);
    const adminId = json(admin.stdout)['id'];
    expect(adminId).toMatch(/^[0-9a-f-]{36}$/);
    expect(admin.stdout.trim().split('\n')).toHaveLength(1);

    const duplicate = await runCairn(['users', 'create', '--email', 'root@example.org', '--name', 'Other'], env);
    expect(duplicate.code).not.toBe(0);
    expect(duplicate.stdout).toBe('');
    expect(duplicate.stderr.trim().split('\n')).toHaveLength(1);
    expect(duplicate.stderr).toContain('email_taken');

    const org = await runCairn(['orgs', 'create', '--name', 'Example University', '--country', 'de'], env);
    expect(org.code).toBe(0);
    const orgId = json(org.stdout)['id'] as string;
    const member = await runCairn(['orgs', 'add-member', '--org', orgId, '--user', 'root@example.org', '--role', 'admin'], env);
    expect(member.code).toBe(0);
    expect(json(member.stdout)).toEqual({ organization_id: orgId, user_id: adminId, role: 'admin' });
    const again = await runCairn(['orgs', 'add-member', '--org', orgId, '--user', String(adminId)], env);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('already_member');

    const { rows } = await resources.pool.query('select o.name, o.country, m.role from organizations o join organization_memberships m on m.organization_id = o.id where o.id = $1', [orgId]);
    expect(rows).toEqual([{ name: 'Example University', country: 'DE', role: 'admin' }]);
    const credential = await resources.pool.query<{ password_hash: string }>('select password_hash from user_credentials where user_id = $1', [adminId]);
    expect(credential.rows[0]?.password_hash).toMatch(/^\$argon2id\$/);

    const issued = await runCairn(['tokens', 'issue', '--user', 'root@example.org', '--ttl', '600'], env);
    expect(issued.code).toBe(0);
    const token = json(issued.stdout);
    expect(token).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'read write' });
    const app = createApp(resources, 'all');
    await request(app).post('/api/funding-agencies/').auth(String(token['access_token']), { type: 'bearer' }).send({ name: 'From the CLI' }).expect(201);

    // Recorded in the audit log, by digest only.
    const audit = await resources.pool.query<{ data: { tokenDigest: string; userId: string }; metadata: { causationId: string } }>(
      "select data, metadata from events where type = 'AccessTokenIssued'",
    );
    expect(audit.rows).toHaveLength(1);
    expect(audit.rows[0]?.data.userId).toBe(adminId);
    expect(JSON.stringify(audit.rows[0])).not.toContain(String(token['access_token']));
    expect(audit.rows[0]?.metadata.causationId).toBe('cli:tokens issue');

    // Revoking the token at the OAuth server makes it unusable at once.
    await request(app).post('/oauth/revoke').type('form').send({ token: String(token['access_token']), client_id: 'cairn-cli' }).expect(200);
    await request(app).get('/api/funding-agencies/').auth(String(token['access_token']), { type: 'bearer' }).expect(401);
  }, 120_000);

  it('creates confidential and public OAuth clients', async () => {
    const confidential = await runCairn(['clients', 'create', '--name', 'Web', '--redirect-uri', 'https://app.example.org/callback'], env);
    expect(confidential.code).toBe(0);
    expect(json(confidential.stdout)).toEqual({ client_id: expect.any(String), client_secret: expect.any(String) });
    const pub = await runCairn(['clients', 'create', '--name', 'CLI', '--public', '--redirect-uri', 'http://127.0.0.1:8765/callback'], env);
    expect(pub.code).toBe(0);
    expect(Object.keys(json(pub.stdout))).toEqual(['client_id']);
    const client = await resources.oauth.provider.Client.find(String(json(pub.stdout)['client_id']));
    expect(client?.tokenEndpointAuthMethod).toBe('none');
    const bad = await runCairn(['clients', 'create', '--name', 'Bad', '--redirect-uri', 'not a uri'], env);
    expect(bad.code).not.toBe(0);
  }, 60_000);

  it('reports projections and rebuilds them', async () => {
    const status = await runCairn(['projections', 'status'], env);
    expect(status.code).toBe(0);
    const names = (json(status.stdout)['projections'] as { name: string; status: string }[]).map((p) => `${p.name}:${p.status}`);
    expect(names).toEqual(expect.arrayContaining(['funding-agencies:running', 'identity:running']));
    const before = await resources.pool.query('select id, name, created_at from funding_agencies order by id');
    const rebuilt = await runCairn(['projections', 'rebuild', 'funding-agencies'], env);
    expect(rebuilt.code).toBe(0);
    expect(json(rebuilt.stdout)).toEqual({ rebuilt: ['funding-agencies'] });
    const after = await resources.pool.query('select id, name, created_at from funding_agencies order by id');
    expect(after.rows).toEqual(before.rows);
    const unknown = await runCairn(['projections', 'rebuild', 'nope'], env);
    expect(unknown.code).toBe(2);
  }, 60_000);

  it('fails with one line and a non-zero exit on bad usage or configuration', async () => {
    const unknown = await runCairn(['frobnicate'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toEqual(['cairn: unknown command "frobnicate"; see cairn --help']);
    const missing = await runCairn(['users', 'create', '--name', 'No Mail'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--email is required');
    const badConfig = await runCairn(['projections', 'status'], { ...env, DATABASE_URL: 'mysql://nope', PORT: 'eighty' });
    expect(badConfig.code).toBe(1);
    expect(badConfig.stderr.trim().split('\n')).toHaveLength(1);
    expect(badConfig.stderr).toContain('invalid configuration');
    expect(badConfig.stderr).toContain('DATABASE_URL');
    expect(badConfig.stderr).toContain('PORT');
  }, 60_000);

  it('keeps the database unchanged by a failed command', async () => {
    const before = await resources.pool.query('select count(*)::int as n from events');
    const bad = await runCairn(['orgs', 'add-member', '--org', '00000000-0000-4000-8000-000000000000', '--user', 'root@example.org'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('not_found');
    const after = await resources.pool.query('select count(*)::int as n from events');
    expect(after.rows).toEqual(before.rows);
  }, 60_000);
});
