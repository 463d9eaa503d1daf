import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { assets, operatorActor } from '@cairn/domain';
import { storageContracts, type migrationSchema } from '@cairn/contract';
import { executeCommand } from '@cairn/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createAsset, setPermissions, type Asset } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { fsRepository, grantAllocation, upload, type Allocation, type Content } from './storage-fixtures.ts';

type Migration = z.output<typeof migrationSchema>;

/**
 * Every route of contract/src/storage.contract.ts, asked by every kind of caller, with the
 * exact status of each cell. The asset belongs to `owner`; the callers named after flags
 * hold exactly those on it through a user entry (DECISIONS.md 2); `stranger` holds
 * nothing, so the asset is hidden from them (404, DECISIONS.md 1). The allocations are the
 * owner's: a user sees their own, but only a system administrator (or an admin of an
 * organization the owner is in) manages it, and only a system administrator chooses the
 * default of a user's allocation (interface 4.2).
 */
const flagHolders = {
  reader: 1,
  contentReader: 1 | 4,
  writer: 1 | 8,
  metadataWriter: 1 | 2,
} as const;
type FlagHolder = keyof typeof flagHolders;
const roles = ['anonymous', 'stranger', 'reader', 'contentReader', 'writer', 'metadataWriter', 'owner', 'systemAdmin'] as const;
type Role = (typeof roles)[number];
type Expected = Record<Role, number>;

const everyone = (ok: number): Expected => ({ anonymous: 401, stranger: ok, reader: ok, contentReader: ok, writer: ok, metadataWriter: ok, owner: ok, systemAdmin: ok });
/** Everyone who sees the asset gets `ok`; a stranger cannot tell it exists. */
const seers = (ok: number): Expected => ({ ...everyone(ok), stranger: 404 });
/** Those who see the asset and hold the flag get `ok`; the others who see it 403. */
const holders = (ok: number, ...roles: Role[]): Expected => ({ ...seers(403), ...Object.fromEntries(roles.map((r) => [r, ok])) });
/** The owner's allocation: seen by the owner and a system administrator only. */
const allocationSeers = (ok: number, owner = ok): Expected => ({ ...everyone(404), owner, systemAdmin: ok });

const unknownId = '00000000-0000-4000-8000-000000000000';

/** What a cell works on: an asset with one content record, maybe a failed migration, the owner's allocation, a download link. */
type Target = { asset: Asset; content: Content; migration: Migration | null; allocation: Allocation; link: string };
/**
 * `shared`: one target for every caller (reads, and writes that change nothing: the same
 * limit, the default again). The others make a fresh one per caller: `asset` without
 * content, `content` with one record, `failedMigration` an asset whose migration failed,
 * `allocation` another allocation of the owner.
 */
type Setup = 'shared' | 'asset' | 'content' | 'failedMigration' | 'allocation';
type Call = (r: ReturnType<typeof request>, auth: Record<string, string>, target: Target) => request.Test;
type Case = { route: string; call: Call; expected: Expected; setup?: Setup };

let h: Harness;
let users: Record<Exclude<Role, 'anonymous'>, User>;
let repo: { id: string; dir: string };
let target: { id: string; dir: string };
let allocation: Allocation;
let shared: Target;
const referenceKey = 'refs/matrix.txt';

beforeAll(async () => {
  h = await startHarness('all');
  const make = () => h.createUser();
  users = {
    stranger: await make(),
    reader: await make(),
    contentReader: await make(),
    writer: await make(),
    metadataWriter: await make(),
    owner: await make(),
    systemAdmin: await h.createUser({ admin: true }),
  };
  repo = await fsRepository(h, 'matrix');
  target = await fsRepository(h, 'matrix-target');
  allocation = await grantAllocation(h, users.systemAdmin, { owner_type: 'user', owner_id: users.owner.id, repository_id: repo.id, limit_bytes: 10_000_000 });
  await request(h.commandApp).post(`/api/allocations/${allocation.id}/default/`).set(bearer(users.systemAdmin)).expect(200);
  await grantAllocation(h, users.systemAdmin, { owner_type: 'user', owner_id: users.owner.id, repository_id: target.id, limit_bytes: 10_000_000 });
  // An object already in the repository, for the JSON (reference) content record.
  await mkdir(path.join(repo.dir, 'refs'), { recursive: true });
  await writeFile(path.join(repo.dir, referenceKey), 'already here\n');
  shared = await sharedTarget();
});
afterAll(async () => {
  await h.close();
});

async function freshAsset(): Promise<Asset> {
  const asset = await createAsset(h, users.owner, { title: 'Matrix' });
  await setPermissions(
    h,
    users.owner,
    asset.id,
    (Object.keys(flagHolders) as FlagHolder[]).map((holder) => ({ subject_type: 'user', subject_id: users[holder].id, flags: flagHolders[holder] })),
  );
  return asset;
}

async function addContent(asset: Asset): Promise<Content> {
  const added = await upload(h, users.owner, asset.id, Buffer.from('a,b\n1,2\n3,4\n'), { filename: 'rows.csv', contentType: 'text/csv' });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  return added.body as Content;
}

async function sharedTarget(): Promise<Target> {
  const asset = await freshAsset();
  const content = await addContent(asset);
  const location = await request(h.queryApp).get(`/api/assets/${asset.id}/location/`).set(bearer(users.owner)).expect(200);
  const url = new URL(location.body.content[0].url as string);
  return { asset, content, migration: null, allocation, link: url.pathname + url.search };
}

async function freshTarget(setup: Setup): Promise<Target> {
  switch (setup) {
    case 'shared':
      return shared;
    case 'asset':
      return { ...shared, asset: await freshAsset() };
    case 'content': {
      const asset = await freshAsset();
      return { ...shared, asset, content: await addContent(asset) };
    }
    case 'failedMigration': {
      const asset = await freshAsset();
      return { ...shared, asset, migration: await failedMigration(asset.id) };
    }
    case 'allocation':
      return { ...shared, allocation: await grantAllocation(h, users.systemAdmin, { owner_type: 'user', owner_id: users.owner.id, repository_id: target.id, limit_bytes: 1 }) };
  }
}

/**
 * A migration that failed for good: started through the API, then run and failed on the
 * asset's stream as the worker records it (no worker runs here, so nothing else moves).
 */
async function failedMigration(assetId: string): Promise<Migration> {
  const started = await request(h.commandApp).post(`/api/assets/${assetId}/migrations/`).set(bearer(users.owner)).send({ target_repository_id: target.id });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const migration = started.body as Migration;
  const id = assetId as assets.AssetId;
  const authority = { principals: [], inheritedFlags: 0 };
  const step = (command: assets.AssetMigrationCommand) =>
    executeCommand(h.resources.eventStore, assets.assetDecider, assets.assetStream(id), command, { actor: operatorActor, now: new Date().toISOString() }, { requestId: null, correlationId: 'matrix', causationId: null });
  await step({ type: 'RunAssetMigration', id, authority, migrationId: migration.id });
  await step({ type: 'FailAssetMigration', id, authority, migrationId: migration.id, error: 'the matrix made it fail', retrying: false });
  return migration;
}

const contentPath = (t: Target) => `/api/assets/${t.asset.id}/content/${t.content.id}/`;

const cases: Case[] = [
  { route: 'GET /api/repositories/', call: (r, a) => r.get('/api/repositories/').set(a), expected: everyone(200) },
  { route: 'GET /api/allocations/', call: (r, a) => r.get('/api/allocations/').set(a), expected: everyone(200) },
  {
    route: 'POST /api/allocations/',
    call: (r, a) => r.post('/api/allocations/').set(a).send({ owner_type: 'user', owner_id: users.owner.id, repository_id: target.id, limit_bytes: 1 }),
    expected: { ...everyone(403), systemAdmin: 201 },
  },
  { route: 'GET /api/allocations/{id}/', call: (r, a, t) => r.get(`/api/allocations/${t.allocation.id}/`).set(a), expected: allocationSeers(200) },
  // The same limit again: the rule is checked, nothing changes for the next cell.
  {
    route: 'PATCH /api/allocations/{id}/',
    call: (r, a, t) => r.patch(`/api/allocations/${t.allocation.id}/`).set(a).send({ limit_bytes: t.allocation.limit_bytes }),
    expected: allocationSeers(200, 403),
  },
  { route: 'DELETE /api/allocations/{id}/', call: (r, a, t) => r.delete(`/api/allocations/${t.allocation.id}/`).set(a), expected: allocationSeers(204, 403), setup: 'allocation' },
  // Already the default: the rule is checked, the default stays.
  { route: 'POST /api/allocations/{id}/default/', call: (r, a, t) => r.post(`/api/allocations/${t.allocation.id}/default/`).set(a), expected: allocationSeers(200, 403) },
  { route: 'GET /api/assets/{id}/content/', call: (r, a, t) => r.get(`/api/assets/${t.asset.id}/content/`).set(a), expected: holders(200, 'contentReader', 'owner', 'systemAdmin') },
  {
    route: 'POST /api/assets/{id}/content/ (multipart upload)',
    call: (r, a, t) => r.post(`/api/assets/${t.asset.id}/content/`).set(a).attach('file', Buffer.from('more'), { filename: 'more.bin', contentType: 'application/octet-stream' }),
    expected: holders(201, 'writer', 'owner', 'systemAdmin'),
    setup: 'asset',
  },
  {
    // Recording an object already in a repository would expose it: system administrators only.
    route: 'POST /api/assets/{id}/content/ (JSON reference)',
    call: (r, a, t) => r.post(`/api/assets/${t.asset.id}/content/`).set(a).send({ key: referenceKey }),
    expected: holders(201, 'systemAdmin'),
    setup: 'asset',
  },
  { route: 'GET /api/assets/{id}/content/{content_pk}/', call: (r, a, t) => r.get(contentPath(t)).set(a), expected: holders(200, 'contentReader', 'owner', 'systemAdmin') },
  { route: 'DELETE /api/assets/{id}/content/{content_pk}/', call: (r, a, t) => r.delete(contentPath(t)).set(a), expected: holders(204, 'writer', 'owner', 'systemAdmin'), setup: 'content' },
  {
    route: 'POST /api/assets/{id}/content/{content_pk}/extract-metadata/',
    call: (r, a, t) => r.post(`${contentPath(t)}extract-metadata/`).set(a),
    expected: holders(200, 'metadataWriter', 'owner', 'systemAdmin'),
    setup: 'content',
  },
  { route: 'GET /api/assets/{id}/location/', call: (r, a, t) => r.get(`/api/assets/${t.asset.id}/location/`).set(a), expected: seers(200) },
  // The signature is the credential: whoever holds the link, signed in or not.
  { route: 'GET /api/assets/{id}/content/{content_pk}/download/', call: (r, a, t) => r.get(t.link).set(a), expected: { ...everyone(200), anonymous: 200 } },
  { route: 'GET /api/assets/{id}/migrations/', call: (r, a, t) => r.get(`/api/assets/${t.asset.id}/migrations/`).set(a), expected: seers(200) },
  {
    route: 'GET /api/assets/{id}/migrations/{mid}/',
    call: (r, a, t) => r.get(`/api/assets/${t.asset.id}/migrations/${t.migration?.id ?? unknownId}/`).set(a),
    expected: seers(200),
    setup: 'failedMigration',
  },
  {
    route: 'POST /api/assets/{id}/migrations/',
    call: (r, a, t) => r.post(`/api/assets/${t.asset.id}/migrations/`).set(a).send({ target_repository_id: target.id }),
    expected: holders(201, 'writer', 'owner', 'systemAdmin'),
    setup: 'asset',
  },
  {
    route: 'POST /api/assets/{id}/migrations/{mid}/retry/',
    call: (r, a, t) => r.post(`/api/assets/${t.asset.id}/migrations/${t.migration?.id ?? unknownId}/retry/`).set(a),
    expected: holders(200, 'writer', 'owner', 'systemAdmin'),
    setup: 'failedMigration',
  },
];

const authOf = (role: Role) => (role === 'anonymous' ? {} : bearer(users[role]));

/** Every caller at once, each on their own target (or the shared one): the cells cannot meet. */
async function statuses({ call, setup = 'shared' }: Case): Promise<Expected> {
  const cells = await Promise.all(roles.map(async (role) => [role, (await call(request(h.commandApp), authOf(role), await freshTarget(setup))).status] as const));
  return Object.fromEntries(cells) as Expected;
}

describe('who may do what on storage routes', () => {
  it('covers every route of the storage contract', () => {
    const covered = new Set(cases.map((c) => c.route.replace(/ \(.*\)$/, '')));
    expect([...covered].sort()).toEqual(storageContracts.map((c) => `${c.method.toUpperCase()} ${c.path}`).sort());
  });

  it.each(cases.map((c) => [c.route, c] as const))('%s', async (_route, c) => {
    expect(await statuses(c)).toEqual(c.expected);
  });

  it('gives download URLs in the location only to callers with READ_CONTENT', async () => {
    const seen: Partial<Record<Role, boolean>> = {};
    for (const role of roles) {
      if (role === 'anonymous' || role === 'stranger') continue;
      const res = await request(h.queryApp).get(`/api/assets/${shared.asset.id}/location/`).set(authOf(role)).expect(200);
      const [entry] = res.body.content as { url: string | null; expires_at: string | null; content_id: string }[];
      expect(entry?.content_id).toBe(shared.content.id);
      expect(entry?.expires_at === null).toBe(entry?.url === null);
      seen[role] = entry?.url !== null;
    }
    expect(seen).toEqual({ reader: false, contentReader: true, writer: false, metadataWriter: false, owner: true, systemAdmin: true });
  });

  it('answers a forged or expired download link 404, whoever asks', async () => {
    const forged = shared.link.replace(/signature=[^&]+/, 'signature=0000');
    const expired = shared.link.replace(/expires=\d+/, 'expires=1000');
    for (const role of roles) {
      for (const link of [forged, expired]) expect((await request(h.queryApp).get(link).set(authOf(role))).status, `${role} ${link}`).toBe(404);
    }
  });

  it('answers a stranger on a hidden asset exactly as on an unknown one, and anonymous callers 401 with WWW-Authenticate', async () => {
    const unknown: Target = { ...shared, asset: { ...shared.asset, id: unknownId } };
    for (const c of cases) {
      if (!c.route.includes('/api/assets/') || c.route.includes('/download/')) continue;
      const t = await freshTarget(c.setup ?? 'shared');
      const hidden = await c.call(request(h.commandApp), bearer(users.stranger), t);
      const missing = await c.call(request(h.commandApp), bearer(users.stranger), { ...unknown, migration: t.migration });
      expect([hidden.status, hidden.body], c.route).toEqual([404, missing.body]);
      const anonymous = await c.call(request(h.commandApp), {}, t);
      expect([anonymous.status, anonymous.headers['www-authenticate']?.startsWith('Bearer')], c.route).toEqual([401, true]);
    }
  });
});

describe('extract-metadata where extraction is disabled', () => {
  let off: Harness;
  afterAll(async () => {
    await off?.close();
  });

  // Interface 7: 404 for the hidden and 403 without WRITE_METADATA come first; then 503.
  it('answers 401, 404 and 403 as usual, and 503 extraction_disabled to who may extract', async () => {
    off = await startHarness('all', { CAIRN_METADATA_EXTRACTION: 'disabled' });
    const people = { stranger: await off.createUser(), owner: await off.createUser(), systemAdmin: await off.createUser({ admin: true }) };
    const grantees = Object.fromEntries(await Promise.all((Object.keys(flagHolders) as FlagHolder[]).map(async (k) => [k, await off.createUser()] as const))) as Record<FlagHolder, User>;
    const disabledRepo = await fsRepository(off, 'matrix-off');
    await grantAllocation(off, people.systemAdmin, { owner_type: 'user', owner_id: people.owner.id, repository_id: disabledRepo.id, limit_bytes: 1000 });
    const asset = await createAsset(off, people.owner);
    await setPermissions(off, people.owner, asset.id, (Object.keys(flagHolders) as FlagHolder[]).map((k) => ({ subject_type: 'user', subject_id: grantees[k].id, flags: flagHolders[k] })));
    const content = (await upload(off, people.owner, asset.id, Buffer.from('a,b\n1,2\n')).expect(201)).body as Content;
    const callers = { ...people, ...grantees };

    const result = {} as Expected;
    const codes: Partial<Record<Role, string>> = {};
    const retryAfter: (string | undefined)[] = [];
    for (const role of roles) {
      const res = await request(off.commandApp)
        .post(`/api/assets/${asset.id}/content/${content.id}/extract-metadata/`)
        .set(role === 'anonymous' ? {} : bearer(callers[role]));
      result[role] = res.status;
      if (res.status === 503) codes[role] = res.body.code as string;
      if (res.status === 503) retryAfter.push(res.headers['retry-after']);
    }
    expect(result).toEqual({ ...seers(403), metadataWriter: 503, owner: 503, systemAdmin: 503 });
    expect(codes).toEqual({ metadataWriter: 'extraction_disabled', owner: 'extraction_disabled', systemAdmin: 'extraction_disabled' });
    // Retrying changes nothing while the deployment has it switched off: no Retry-After (docs/http.md).
    expect(retryAfter).toEqual([undefined, undefined, undefined]);
  });
});
