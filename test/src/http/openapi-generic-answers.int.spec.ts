import { randomUUID } from 'node:crypto';
import { createApp, tokensIssue, usersCreate, type Resources } from '@cairn/cli';
import { allContracts } from '@cairn/contract';
import { encodePosition, type OperationContract } from '@cairn/platform';
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { createTestDatabase } from '../support/database.ts';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { answers, openTestResources, startHarness, type Harness } from '../support/harness.ts';

/**
 * The statuses the OpenAPI document derives from each operation's shape
 * (platform/src/http/documented-answers.ts), answered by every operation they are
 * documented on: the derivation is true, and each is reached by a test (docs/api-docs.md).
 */
const bodyLimit = 2048;
const pathOf = (contract: OperationContract) => contract.path.replace(/\{\w+\}/g, () => randomUUID());
const send = (app: Express, contract: OperationContract) => request(app)[contract.method](pathOf(contract));
const name = (contract: OperationContract) => `${contract.method.toUpperCase()} ${contract.path}`;
const codeOf = (res: request.Response) => (res.body as { code?: string }).code;

describe('the derived statuses, answered by every operation', () => {
  let h: Harness;
  let admin: User;
  let readOnly: User;
  let writeOnly: User;

  beforeAll(async () => {
    h = await startHarness('all', { CAIRN_BODY_LIMIT_BYTES: String(bodyLimit) });
    admin = await h.createUser({ admin: true });
    readOnly = await h.createUser({ admin: true, scopes: 'read' });
    writeOnly = await h.createUser({ admin: true, scopes: 'write' });
  });
  afterAll(async () => h.close());

  it('401 to credentials that are not valid, also where none are needed', async () => {
    for (const contract of allContracts) {
      const res = await send(h.commandApp, contract).set('Authorization', 'Bearer not-a-token');
      expect(res.status, name(contract)).toBe(401);
      expect(res.headers['www-authenticate'], name(contract)).toMatch(/^Bearer/);
    }
  });

  it('400 to a consistency token the service did not issue', async () => {
    for (const contract of allContracts) {
      const res = await send(h.commandApp, contract).set(bearer(admin)).set('X-Consistency-Token', 'not a token');
      expect([res.status, codeOf(res)], name(contract)).toEqual([400, 'invalid_consistency_token']);
    }
  });

  it('403 to a token without the scope the operation needs', async () => {
    for (const contract of allContracts.filter((c) => c.authenticated)) {
      const res = await send(h.commandApp, contract).set(bearer(contract.side === 'command' ? readOnly : writeOnly));
      expect([res.status, codeOf(res)], name(contract)).toEqual([403, 'insufficient_scope']);
    }
  });

  it('415 to a body of another type, and 413 to a body over the limit', async () => {
    for (const contract of allContracts.filter((c) => c.body)) {
      const typed = await send(h.commandApp, contract).set(bearer(admin)).set('Content-Type', 'text/plain').send('hello');
      expect(typed.status, name(contract)).toBe(415);
      const large = await send(h.commandApp, contract)
        .set(bearer(admin))
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ title: 'x'.repeat(bodyLimit) }));
      expect(large.status, name(contract)).toBe(413);
    }
  });

  it('413 on the routes that need no token, to a declared body over their bound, before reading it', async () => {
    // A direct upload's part is bounded by its signed length instead (413 past it: storage/direct-uploads.int.spec.ts).
    for (const contract of allContracts.filter((c) => !c.authenticated && !c.rawBody)) {
      const res = await send(h.commandApp, contract).set('Content-Type', 'application/json').send(JSON.stringify({ padding: 'x'.repeat(20_000) }));
      expect(res.status, name(contract)).toBe(413);
    }
  });

  it('404 to an id in the path that names nothing', async () => {
    for (const contract of allContracts.filter((c) => c.path.includes('{') && !c.body && c.authenticated)) {
      const res = await send(h.commandApp, contract).set(bearer(admin));
      expect(res.status, name(contract)).toBe(404);
    }
  });
});

describe('503 from every operation while the database is down', () => {
  let proxy: FaultProxy;
  let resources: Resources;
  let app: Express;
  let token: string;

  beforeAll(async () => {
    proxy = await startFaultProxy(await createTestDatabase());
    resources = await openTestResources(proxy.url, { CAIRN_DB_CONNECT_TIMEOUT_MS: '500', CAIRN_DB_QUERY_TIMEOUT_MS: '1000' });
    app = answers.wrap(createApp(resources, 'all'));
    const { id } = await usersCreate(resources, ['--email', `down-${Date.now()}@example.org`, '--name', 'Down', '--system-admin']);
    token = (await tokensIssue(resources, ['--user', id, '--scopes', 'read write'])).access_token;
  });
  afterAll(async () => {
    answers.flush();
    await proxy?.set('pass');
    await resources?.close();
    await proxy?.close();
  });

  it('answers 503 with Retry-After', async () => {
    await proxy.set('refuse');
    // A token past any position read so far: the log's head is read before anything else
    // of the operation (its body is not even checked), so each operation meets the outage.
    const ahead = encodePosition({ major: 1n << 40n, minor: 0n });
    for (const contract of allContracts) {
      const res = await send(app, contract).set('Authorization', `Bearer ${token}`).set('X-Consistency-Token', ahead);
      expect([res.status, codeOf(res)], name(contract)).toEqual([503, 'database_unavailable']);
      expect(res.headers['retry-after'], name(contract)).toMatch(/^\d+$/);
    }
  });
});
