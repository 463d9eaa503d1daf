import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { projectionsStatus, type Resources } from '@cairn/cli';
import { currentVersionOf, DomainError, eventCatalog, fundingAgencies, operatorActor, type EventMetadata, type FundingAgencyId } from '@cairn/domain';
import { comparePositions, executeCommand, startOfLog, type AppendResult, type EventStore, type GlobalPosition, type NewEvent } from '@cairn/platform';
import { catchUp, fundingAgenciesProjection, projections, resetProjection, startProjector, type Projection, type Projector, type ReadDb } from '@cairn/projections';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.ts';
import { openTestResources } from '../support/harness.ts';

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

type FaEvent = fundingAgencies.FundingAgencyEvent;
type FaFields = fundingAgencies.FundingAgencyFields;

/** One event to append: its stream, its domain event, its id and when it "happened". */
type Planned = { readonly streamId: string; readonly id: string; readonly event: FaEvent; readonly occurredAt: string };

type AgencyRow = {
  id: string;
  name: string;
  abbreviation: string;
  url: string;
  catalog_id: string;
  created_at: Date;
  updated_at: Date;
};

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const crashingProjectorScript = fileURLToPath(new URL('./fixtures/crashing-projector.ts', import.meta.url));
const faTypes = fundingAgenciesProjection.handles;
const allProjectionNames = projections.map((p) => p.name);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls every 50 ms until `probe` answers something truthy; fails after `timeoutMs`. */
async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

let clock = Date.parse('2024-03-01T08:00:00.000Z');
const nextOccurredAt = () => {
  clock += 1000;
  return new Date(clock).toISOString();
};

function metadata(occurredAt: string): EventMetadata {
  return { actorId: null, requestId: null, correlationId: randomUUID(), causationId: null, occurredAt };
}

function toNewEvent(planned: Planned): NewEvent {
  return {
    id: planned.id,
    type: planned.event.type,
    schemaVersion: currentVersionOf(eventCatalog, planned.event.type),
    data: planned.event.data,
    metadata: metadata(planned.occurredAt),
  };
}

function changesFor(i: number, k: number): Partial<FaFields> {
  switch (k % 4) {
    case 0:
      return { name: `Agency ${i} rev ${k}` };
    case 1:
      return { abbreviation: `A${i}R${k}`, url: `https://agency-${i}.example.org/v${k}` };
    case 2:
      return { catalogId: `catalog-${i}-${k}` };
    default:
      return { name: `Agency ${i} (renamed ${k})`, url: `https://renamed-${i}-${k}.example.org` };
  }
}

function createdEvent(id: FundingAgencyId, name: string, i = 0): FaEvent {
  return { type: 'FundingAgencyCreated', data: { id, name, abbreviation: `A${i}`, url: `https://agency-${i}.example.org`, catalogId: `catalog-${i}` } };
}

function plannedCreate(name: string, i = 0): Planned {
  const id = randomUUID() as FundingAgencyId;
  return { streamId: fundingAgencies.fundingAgencyStream(id), id: randomUUID(), event: createdEvent(id, name, i), occurredAt: nextOccurredAt() };
}

/** One history per stream: a create, some updates, maybe a delete. */
function planHistories(streams: number, shape: (i: number) => { updates: number; deleted: boolean }): Planned[][] {
  const histories: Planned[][] = [];
  for (let i = 0; i < streams; i += 1) {
    const id = randomUUID() as FundingAgencyId;
    const streamId = fundingAgencies.fundingAgencyStream(id);
    const { updates, deleted } = shape(i);
    const events: FaEvent[] = [createdEvent(id, `Agency ${i}`, i)];
    for (let k = 1; k <= updates; k += 1) events.push({ type: 'FundingAgencyUpdated', data: { id, changes: changesFor(i, k) } });
    if (deleted) events.push({ type: 'FundingAgencyDeleted', data: { id } });
    histories.push(events.map((event) => ({ streamId, id: randomUUID(), event, occurredAt: nextOccurredAt() })));
  }
  return histories;
}

/** Round robin over the histories, so consecutive events belong to different streams. */
function interleave(histories: readonly (readonly Planned[])[]): Planned[] {
  const out: Planned[] = [];
  const longest = Math.max(0, ...histories.map((h) => h.length));
  for (let step = 0; step < longest; step += 1) {
    for (const history of histories) {
      const planned = history[step];
      if (planned) out.push(planned);
    }
  }
  return out;
}

/** Appends one event per call, in the given order, with exact expected versions. */
async function appendInOrder(eventStore: EventStore, planned: readonly Planned[]): Promise<AppendResult[]> {
  const versions = new Map<string, number>();
  const results: AppendResult[] = [];
  for (const p of planned) {
    const version = versions.get(p.streamId) ?? 0;
    const result = await eventStore.appendToStream(p.streamId, [toNewEvent(p)], { expectedVersion: version === 0 ? 'none' : version });
    versions.set(p.streamId, result.nextExpectedVersion);
    results.push(result);
  }
  return results;
}

/** What the funding_agencies table must hold after these events (per stream, in order). */
function expectedRows(planned: readonly Planned[]): AgencyRow[] {
  const rows = new Map<string, AgencyRow>();
  for (const { event, occurredAt } of planned) {
    const at = new Date(occurredAt);
    switch (event.type) {
      case 'FundingAgencyCreated': {
        const { id, name, abbreviation, url, catalogId } = event.data;
        if (!rows.has(id)) rows.set(id, { id, name, abbreviation, url, catalog_id: catalogId, created_at: at, updated_at: at });
        break;
      }
      case 'FundingAgencyUpdated': {
        const row = rows.get(event.data.id);
        if (!row) break;
        const c = event.data.changes;
        rows.set(row.id, {
          ...row,
          ...(c.name !== undefined ? { name: c.name } : {}),
          ...(c.abbreviation !== undefined ? { abbreviation: c.abbreviation } : {}),
          ...(c.url !== undefined ? { url: c.url } : {}),
          ...(c.catalogId !== undefined ? { catalog_id: c.catalogId } : {}),
          updated_at: at,
        });
        break;
      }
      case 'FundingAgencyDeleted':
        rows.delete(event.data.id);
        break;
    }
  }
  return [...rows.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

async function readAgencies(db: ReadDb): Promise<AgencyRow[]> {
  return db.selectFrom('funding_agencies').selectAll().orderBy('id').execute();
}

async function agencyById(db: ReadDb, id: string): Promise<AgencyRow | undefined> {
  return db.selectFrom('funding_agencies').selectAll().where('id', '=', id).executeTakeFirst();
}

async function checkpointOf(db: ReadDb, name: string) {
  const row = await db.selectFrom('projection_checkpoints').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
  const position: GlobalPosition = { major: BigInt(row.major), minor: BigInt(row.minor) };
  return { ...row, position, eventsApplied: Number(row.events_applied) };
}

/** The greatest of some append positions: the one every reader reaches last. */
function lastPosition(results: readonly (AppendResult | undefined)[]): GlobalPosition {
  let last = startOfLog;
  for (const result of results) if (result && comparePositions(result.position, last) > 0) last = result.position;
  return last;
}

/**
 * Every named projection is running, has reached `target` (the position of the last event
 * the test appended) and sits at the head of the log. The head alone is not enough: it is
 * what readers may see *now*, and any older transaction still open on the server (a
 * projector's batch, another test file's work) holds it back behind committed events.
 */
async function caughtUp(resources: Resources, names: readonly string[], target: GlobalPosition): Promise<boolean> {
  const head = await resources.eventStore.headPosition();
  if (comparePositions(head, target) < 0) return false;
  for (const name of names) {
    const row = await resources.db.selectFrom('projection_checkpoints').select(['major', 'minor', 'status']).where('name', '=', name).executeTakeFirst();
    if (!row || row.status !== 'running') return false;
    if (comparePositions({ major: BigInt(row.major), minor: BigInt(row.minor) }, head) !== 0) return false;
  }
  return true;
}

async function lastEventInLog(resources: Resources): Promise<GlobalPosition> {
  const { rows } = await resources.pool.query<{ major: string; minor: string }>('select transaction_id::text as major, position::text as minor from events order by transaction_id desc, position desc limit 1');
  const row = rows[0];
  return row ? { major: BigInt(row.major), minor: BigInt(row.minor) } : startOfLog;
}

async function countEvents(resources: Resources, types: readonly string[]): Promise<number> {
  const { rows } = await resources.pool.query<{ count: number }>('select count(*)::int as count from events where type = any($1::text[])', [types]);
  return rows[0]?.count ?? -1;
}

/** Inserts an event row by hand, as a writer that bypasses the store (no NOTIFY). */
async function insertRawEvent(
  client: pg.ClientBase,
  row: { eventId: string; streamId: string; streamVersion: number; type: string; schemaVersion: number; data: unknown; occurredAt: string },
): Promise<{ transactionId: bigint; position: bigint }> {
  const { rows } = await client.query<{ transaction_id: string; position: string }>(
    `insert into events (event_id, stream_id, stream_version, type, schema_version, data, metadata)
     values ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb)
     returning transaction_id::text, position`,
    [row.eventId, row.streamId, row.streamVersion, row.type, row.schemaVersion, JSON.stringify(row.data), JSON.stringify(metadata(row.occurredAt))],
  );
  await client.query('insert into streams (stream_id, version) values ($1, $2) on conflict (stream_id) do update set version = excluded.version', [row.streamId, row.streamVersion]);
  const inserted = rows[0];
  if (!inserted) throw new Error('insert returned no row');
  return { transactionId: BigInt(inserted.transaction_id), position: BigInt(inserted.position) };
}

type ChildResult = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

function runChild(script: string, env: Record<string, string>, timeoutMs: number): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // A hung child is ended with SIGTERM, which the test then reports as the wrong signal.
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A fresh database and resources for one describe block; projectors started in it are stopped after each test. */
function useDatabase(options: { stopProjectorsAfterEach?: boolean } = {}) {
  const state: { databaseUrl: string; resources: Resources[]; projectors: Projector[] } = { databaseUrl: '', resources: [], projectors: [] };
  beforeAll(async () => {
    state.databaseUrl = await createTestDatabase();
    state.resources.push(await openTestResources(state.databaseUrl));
  });
  afterEach(async () => {
    if (options.stopProjectorsAfterEach === false) return;
    for (const projector of state.projectors.splice(0)) await projector.stop();
  });
  afterAll(async () => {
    for (const projector of state.projectors.splice(0)) await projector.stop();
    for (const resources of state.resources.splice(0).reverse()) await resources.close();
  });
  return {
    get databaseUrl() {
      return state.databaseUrl;
    },
    get resources(): Resources {
      const first = state.resources[0];
      if (!first) throw new Error('resources are not open yet');
      return first;
    },
    /** More resources on the same database: their own pool, as another process would have. */
    async openMore(): Promise<Resources> {
      const more = await openTestResources(state.databaseUrl);
      state.resources.push(more);
      return more;
    },
    async startProjector(resources: Resources, selected: readonly Projection[], pollIntervalMs: number, batchSize?: number): Promise<Projector> {
      const projector = await startProjector({
        db: resources.db,
        eventStore: resources.eventStore,
        projections: selected,
        logger: resources.logger,
        databaseUrl: state.databaseUrl,
        pollIntervalMs,
        ...(batchSize !== undefined ? { batchSize } : {}),
      });
      state.projectors.push(projector);
      return projector;
    },
    async stop(projector: Projector): Promise<void> {
      const index = state.projectors.indexOf(projector);
      if (index >= 0) state.projectors.splice(index, 1);
      await projector.stop();
    },
  };
}

/** Empties the read model and replays the whole log: what `cairn projections rebuild` does. */
async function rebuild(resources: Resources, projection: Projection): Promise<void> {
  await resetProjection(resources.db, projection);
  expect(await catchUp(resources, projection)).toBe('idle');
}

// ---------------------------------------------------------------------------------------
// a. A crash in the middle of a batch
// ---------------------------------------------------------------------------------------

describe('a projector killed in the middle of a batch', () => {
  const env = useDatabase();

  it('leaves the checkpoint and the read model at the last committed batch; catching up and rebuilding give the same table', async () => {
    const { resources, databaseUrl } = env;
    // 100 streams: a create each, 1 to 3 updates, every fifth deleted: 320 events.
    const planned = interleave(planHistories(100, (i) => ({ updates: 1 + (i % 3), deleted: i % 5 === 0 })));
    const appended = await appendInOrder(resources.eventStore, planned);
    expect(await countEvents(resources, faTypes)).toBe(planned.length);

    const crashAfter = 120;
    const batchSize = 50;
    const child = await runChild(crashingProjectorScript, { CAIRN_TEST_DATABASE_URL: databaseUrl, CRASH_AFTER_EVENTS: String(crashAfter), BATCH_SIZE: String(batchSize) }, 30_000);
    expect(child.stdout, child.stderr).toContain(`crashing after ${crashAfter}`);
    expect(child.signal).toBe('SIGKILL');
    expect(child.code).toBeNull();

    // Two whole batches committed; the third died with the process and left nothing behind.
    const committed = Math.floor(crashAfter / batchSize) * batchSize;
    const afterCrash = await checkpointOf(resources.db, fundingAgenciesProjection.name);
    expect(afterCrash.status).toBe('running');
    expect(afterCrash.eventsApplied).toBe(committed);
    expect(afterCrash.position).toEqual(appended[committed - 1]?.position);
    expect(await readAgencies(resources.db)).toEqual(expectedRows(planned.slice(0, committed)));

    // Catching up in another process (this one) goes on from there.
    expect(await catchUp(resources, fundingAgenciesProjection, batchSize)).toBe('idle');
    const snapshot = await readAgencies(resources.db);
    const checkpoint = await checkpointOf(resources.db, fundingAgenciesProjection.name);
    expect(snapshot).toEqual(expectedRows(planned));
    expect(snapshot.length).toBe(80);
    expect(checkpoint.eventsApplied).toBe(planned.length);
    expect(checkpoint.position).toEqual(appended.at(-1)?.position);

    await rebuild(resources, fundingAgenciesProjection);
    expect(await readAgencies(resources.db)).toEqual(snapshot);
    const rebuilt = await checkpointOf(resources.db, fundingAgenciesProjection.name);
    expect(rebuilt.eventsApplied).toBe(planned.length);
    expect(rebuilt.position).toEqual(checkpoint.position);
    expect(rebuilt.status).toBe('running');
  }, 60_000);
});

// ---------------------------------------------------------------------------------------
// b, c. Transactions that roll back or commit late
// ---------------------------------------------------------------------------------------

describe('a projector following the log while other transactions roll back or commit late', () => {
  // The projector of this block follows the log through all its tests.
  const env = useDatabase({ stopProjectorsAfterEach: false });
  let raw: pg.Client;

  beforeAll(async () => {
    raw = new pg.Client({ connectionString: env.databaseUrl, application_name: 'projector-test-raw' });
    await raw.connect();
    await env.startProjector(env.resources, projections, 50);
  });

  afterAll(async () => {
    await raw.query('rollback').catch(() => undefined);
    await raw.end();
  });

  it('is not stalled by a rolled-back append', async () => {
    const { resources } = env;
    const before = await checkpointOf(resources.db, fundingAgenciesProjection.name);
    const ghost = plannedCreate('ghost');
    await raw.query('begin');
    await insertRawEvent(raw, { eventId: ghost.id, streamId: ghost.streamId, streamVersion: 1, type: ghost.event.type, schemaVersion: 2, data: ghost.event.data, occurredAt: ghost.occurredAt });
    await raw.query('rollback');

    const real = plannedCreate('after the rollback');
    const [appended] = await appendInOrder(resources.eventStore, [real]);
    if (!appended) throw new Error('nothing appended');
    const row = await waitFor(() => agencyById(resources.db, real.event.data.id), 5_000, 'the event after the rolled-back one to be applied');
    expect(row.name).toBe('after the rollback');
    expect(await agencyById(resources.db, ghost.event.data.id)).toBeUndefined();
    await waitFor(() => caughtUp(resources, allProjectionNames, appended.position), 5_000, 'all projections to reach the head');
    const after = await checkpointOf(resources.db, fundingAgenciesProjection.name);
    expect(after.position).toEqual(appended.position);
    expect(after.eventsApplied - before.eventsApplied).toBe(1);
  }, 30_000);

  it('is not stalled when the rollback comes after a later append committed', async () => {
    const { resources } = env;
    const before = await checkpointOf(resources.db, fundingAgenciesProjection.name);
    const ghost = plannedCreate('ghost 2');
    await raw.query('begin');
    await insertRawEvent(raw, { eventId: ghost.id, streamId: ghost.streamId, streamVersion: 1, type: ghost.event.type, schemaVersion: 2, data: ghost.event.data, occurredAt: ghost.occurredAt });
    const real = plannedCreate('committed while the ghost was open');
    const [appended] = await appendInOrder(resources.eventStore, [real]);
    if (!appended) throw new Error('nothing appended');
    // While the older transaction is open, the later event is held back, never skipped.
    await sleep(200);
    expect(await agencyById(resources.db, real.event.data.id)).toBeUndefined();
    await raw.query('rollback');

    await waitFor(() => agencyById(resources.db, real.event.data.id), 5_000, 'the later event to be applied after the rollback');
    expect(await agencyById(resources.db, ghost.event.data.id)).toBeUndefined();
    await waitFor(() => caughtUp(resources, allProjectionNames, appended.position), 5_000, 'all projections to reach the head');
    const after = await checkpointOf(resources.db, fundingAgenciesProjection.name);
    expect(after.position).toEqual(appended.position);
    expect(after.eventsApplied - before.eventsApplied).toBe(1);
  }, 30_000);

  it('applies an event committed late and the later one that committed first, skipping neither', async () => {
    const { resources } = env;
    const before = await checkpointOf(resources.db, fundingAgenciesProjection.name);
    const slow = plannedCreate('slow writer');
    await raw.query('begin');
    const slowRow = await insertRawEvent(raw, { eventId: slow.id, streamId: slow.streamId, streamVersion: 1, type: slow.event.type, schemaVersion: 2, data: slow.event.data, occurredAt: slow.occurredAt });
    const sleeping = raw.query('select pg_sleep(0.5)');

    const fast = plannedCreate('fast writer');
    const [appended] = await appendInOrder(resources.eventStore, [fast]);
    if (!appended) throw new Error('nothing appended');
    // The later append got the later transaction id, and committed first.
    expect(appended.position.major > slowRow.transactionId).toBe(true);
    expect(await agencyById(resources.db, fast.event.data.id)).toBeUndefined();

    await sleeping;
    await raw.query('commit');

    await waitFor(() => caughtUp(resources, allProjectionNames, appended.position), 5_000, 'all projections to reach the head');
    expect((await agencyById(resources.db, slow.event.data.id))?.name).toBe('slow writer');
    expect((await agencyById(resources.db, fast.event.data.id))?.name).toBe('fast writer');
    const after = await checkpointOf(resources.db, fundingAgenciesProjection.name);
    expect(after.position).toEqual(appended.position);
    expect(after.eventsApplied - before.eventsApplied).toBe(2);

    // The log, read from the start, orders the late committer first.
    const all = await resources.eventStore.readAll(startOfLog, 1000);
    const ids = all.map((e) => e.id);
    expect(ids.indexOf(slow.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(slow.id)).toBeLessThan(ids.indexOf(fast.id));
  }, 30_000);
});

// ---------------------------------------------------------------------------------------
// c'. The back-off that covers "woken, but an older transaction still hides the event"
// ---------------------------------------------------------------------------------------

describe('a projector woken while an unrelated transaction holds the snapshot horizon back', () => {
  const env = useDatabase();

  // Regression: the back-off once ran only during the first ~1.3 s of a projector's life,
  // so a later wake that found nothing visible waited for the safety poll (here 60 s).
  it('applies the event soon after the transaction ends, without the safety poll', async () => {
    const { resources } = env;
    await env.startProjector(resources, [fundingAgenciesProjection], 60_000);
    const first = plannedCreate('first');
    await appendInOrder(resources.eventStore, [first]);
    await waitFor(() => agencyById(resources.db, first.event.data.id), 5_000, 'the first event to be applied');
    // Let the retries of the first wakes run out (10 + 20 + ... + 640 ms).
    await sleep(1_500);

    const holder = new pg.Client({ connectionString: env.databaseUrl, application_name: 'projector-test-holder' });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select pg_current_xact_id()');
      const second = plannedCreate('second');
      await appendInOrder(resources.eventStore, [second]);
      await sleep(200);
      expect(await agencyById(resources.db, second.event.data.id)).toBeUndefined();
      await holder.query('commit');
      await waitFor(() => agencyById(resources.db, second.event.data.id), 5_000, 'the event hidden by the unrelated transaction to be applied');
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
    }
  }, 30_000);
});

// ---------------------------------------------------------------------------------------
// d. Two projectors on one database
// ---------------------------------------------------------------------------------------

describe('two projectors on one projection', () => {
  const env = useDatabase();

  it('give the result of one: one holds each projection, every event is applied once', async () => {
    const writer = env.resources;
    const first = await env.openMore();
    const second = await env.openMore();
    const projectorA = await env.startProjector(first, projections, 50, 20);
    const projectorB = await env.startProjector(second, projections, 50, 20);

    // 50 streams of 4 events, appended concurrently (each stream in order).
    const histories = planHistories(50, (i) => ({ updates: i % 2 === 0 ? 3 : 2, deleted: i % 2 === 1 }));
    const planned = histories.flat();
    expect(planned.length).toBe(200);
    const results = await Promise.all(histories.map((history) => appendInOrder(writer.eventStore, history)));
    const target = lastPosition(results.flat());

    await waitFor(() => caughtUp(writer, allProjectionNames, target), 20_000, 'both projectors to reach the head');
    for (const name of allProjectionNames) {
      const holders = [projectorA, projectorB].filter((p) => p.active().includes(name));
      expect(holders, name).toHaveLength(1);
    }
    const fa = await checkpointOf(writer.db, fundingAgenciesProjection.name);
    expect(fa.eventsApplied).toBe(200);
    expect(fa.status).toBe('running');
    expect((await checkpointOf(writer.db, 'identity')).eventsApplied).toBe(0);
    const snapshot = await readAgencies(writer.db);
    expect(snapshot).toEqual(expectedRows(planned));

    await env.stop(projectorA);
    await env.stop(projectorB);
    await rebuild(writer, fundingAgenciesProjection);
    expect(await readAgencies(writer.db)).toEqual(snapshot);
    expect((await checkpointOf(writer.db, fundingAgenciesProjection.name)).eventsApplied).toBe(200);
  }, 60_000);

  it('hand a projection over when the active one stops', async () => {
    const writer = env.resources;
    const first = await env.openMore();
    const second = await env.openMore();
    const projectorA = await env.startProjector(first, projections, 50);
    const projectorB = await env.startProjector(second, projections, 50);
    expect([...projectorA.active()].sort()).toEqual([...allProjectionNames].sort());
    expect(projectorB.active()).toEqual([]);

    const early = await appendInOrder(writer.eventStore, interleave(planHistories(5, () => ({ updates: 1, deleted: false }))));
    await waitFor(() => caughtUp(writer, allProjectionNames, lastPosition(early)), 10_000, 'the active projector to reach the head');

    await env.stop(projectorA);
    const later = interleave(planHistories(5, (i) => ({ updates: 2, deleted: i === 0 })));
    const lateResults = await appendInOrder(writer.eventStore, later);
    await waitFor(() => caughtUp(writer, allProjectionNames, lastPosition(lateResults)), 10_000, 'the standby to take over and reach the head');
    expect([...projectorB.active()].sort()).toEqual([...allProjectionNames].sort());
    expect((await checkpointOf(writer.db, fundingAgenciesProjection.name)).eventsApplied).toBe(await countEvents(writer, faTypes));

    const snapshot = await readAgencies(writer.db);
    await env.stop(projectorB);
    await rebuild(writer, fundingAgenciesProjection);
    expect(await readAgencies(writer.db)).toEqual(snapshot);
  }, 60_000);

  it('apply every event once even without the election (two catch-ups racing on one checkpoint)', async () => {
    const writer = env.resources;
    const first = await env.openMore();
    const second = await env.openMore();
    const expected = await countEvents(writer, faTypes);
    expect(expected).toBeGreaterThan(0);
    const snapshot = await readAgencies(writer.db);

    await resetProjection(writer.db, fundingAgenciesProjection);
    const outcomes = await Promise.all([catchUp(first, fundingAgenciesProjection, 7), catchUp(second, fundingAgenciesProjection, 7)]);
    expect(outcomes).toEqual(['idle', 'idle']);
    expect(await readAgencies(writer.db)).toEqual(snapshot);
    const checkpoint = await checkpointOf(writer.db, fundingAgenciesProjection.name);
    expect(checkpoint.eventsApplied).toBe(expected);
    expect(checkpoint.position).toEqual(await lastEventInLog(writer));
  }, 60_000);
});

// ---------------------------------------------------------------------------------------
// e. A poison event stops one projection, visibly, and no other
// ---------------------------------------------------------------------------------------

describe('an event a projection cannot apply', () => {
  const env = useDatabase();

  it('stops that projection with a visible status and error while the others go on', async () => {
    const { resources } = env;
    let fixed = false;
    const seen: string[] = [];
    const failing: Projection = {
      name: 'test-failing',
      version: 1,
      handles: ['FundingAgencyCreated'],
      tables: [],
      async apply(_trx, event) {
        const data = event.data as { name?: unknown };
        if (!fixed && data.name === 'poison') throw new Error('this projection cannot digest poison');
        seen.push(event.id);
      },
    };
    await env.startProjector(resources, [failing, fundingAgenciesProjection], 50);

    const poison = plannedCreate('poison');
    const normal = plannedCreate('normal');
    const [poisonAppended, normalAppended] = await appendInOrder(resources.eventStore, [poison, normal]);
    if (!poisonAppended || !normalAppended) throw new Error('nothing appended');

    await waitFor(async () => (await checkpointOf(resources.db, failing.name)).status === 'failed', 5_000, 'the failing projection to stop');
    await waitFor(() => caughtUp(resources, [fundingAgenciesProjection.name], normalAppended.position), 5_000, 'funding-agencies to reach the head');

    const stopped = await checkpointOf(resources.db, failing.name);
    expect(stopped.status).toBe('failed');
    expect(stopped.failed_event_id).toBe(poison.id);
    expect(stopped.error).toContain(poison.id);
    expect(comparePositions(stopped.position, poisonAppended.position)).toBeLessThan(0);
    expect(stopped.eventsApplied).toBe(0);

    const others = await checkpointOf(resources.db, fundingAgenciesProjection.name);
    expect(others.status).toBe('running');
    expect(others.error).toBeNull();
    expect(others.position).toEqual(normalAppended.position);
    expect(others.eventsApplied).toBe(2);
    expect((await agencyById(resources.db, poison.event.data.id))?.name).toBe('poison');
    expect((await agencyById(resources.db, normal.event.data.id))?.name).toBe('normal');

    // Visible where an operator looks.
    const status = await projectionsStatus(resources);
    const listed = status.projections.find((p) => p.name === failing.name);
    expect(listed?.status).toBe('failed');
    expect(listed?.failed_event_id).toBe(poison.id);

    // More events do not move the stopped projection; the others keep going.
    const third = plannedCreate('third');
    const [thirdAppended] = await appendInOrder(resources.eventStore, [third]);
    if (!thirdAppended) throw new Error('nothing appended');
    await waitFor(() => caughtUp(resources, [fundingAgenciesProjection.name], thirdAppended.position), 5_000, 'funding-agencies to apply the third event');
    expect((await checkpointOf(resources.db, failing.name)).position).toEqual(stopped.position);

    // After a fix, resetting the status (what `cairn projections resume` does) lets it go on from where it stopped.
    fixed = true;
    await resources.db
      .updateTable('projection_checkpoints')
      .set({ status: 'running', error: null, failed_event_id: null, updated_at: new Date() })
      .where('name', '=', failing.name)
      .execute();
    await waitFor(() => caughtUp(resources, [failing.name, fundingAgenciesProjection.name], thirdAppended.position), 5_000, 'the resumed projection to reach the head');
    const resumed = await checkpointOf(resources.db, failing.name);
    expect(resumed.position).toEqual(thirdAppended.position);
    expect(resumed.eventsApplied).toBe(3);
    expect(resumed.error).toBeNull();
    expect(seen).toEqual([poison.id, normal.id, third.id]);
  }, 30_000);
});

// ---------------------------------------------------------------------------------------
// f. Upcasting on every read path
// ---------------------------------------------------------------------------------------

describe('a version 1 FundingAgencyCreated in the log', () => {
  const env = useDatabase();

  it('is upcast on aggregate load, on catch-up and on rebuild', async () => {
    const { resources } = env;
    expect(currentVersionOf(eventCatalog, 'FundingAgencyCreated')).toBe(2);
    const id = randomUUID() as FundingAgencyId;
    const streamId = fundingAgencies.fundingAgencyStream(id);
    const homepage = 'https://legacy.example.org';
    const createdAt = '2021-05-04T10:00:00.000Z';
    const eventId = randomUUID();
    const client = await resources.pool.connect();
    try {
      await insertRawEvent(client, {
        eventId,
        streamId,
        streamVersion: 1,
        type: 'FundingAgencyCreated',
        schemaVersion: 1,
        data: { id, name: 'Legacy Agency', abbreviation: 'LA', homepage },
        occurredAt: createdAt,
      });
    } finally {
      client.release();
    }

    // Stream reads lift it to the current version.
    const stream = await resources.eventStore.readStream(streamId);
    expect(stream.version).toBe(1);
    expect(stream.events[0]?.schemaVersion).toBe(2);
    expect(stream.events[0]?.data).toEqual({ id, name: 'Legacy Agency', abbreviation: 'LA', url: homepage, catalogId: '' });

    // (1) Aggregate load: the decider folds the v1 event into an active agency with url = homepage.
    const context = { actor: operatorActor, now: '2024-06-01T12:00:00.000Z' };
    const commandMetadata = { requestId: null, correlationId: randomUUID(), causationId: null };
    const unchanged = await executeCommand(resources.eventStore, fundingAgencies.fundingAgencyDecider, streamId, { type: 'ChangeFundingAgency', id, changes: { url: homepage, catalogId: '' } }, context, commandMetadata);
    expect(unchanged.events).toEqual([]);
    // Nothing changed: the position is that of the stream's last (upcast) event.
    expect(unchanged.position).toEqual(stream.events[0]?.position);

    const changed = await executeCommand(resources.eventStore, fundingAgencies.fundingAgencyDecider, streamId, { type: 'ChangeFundingAgency', id, changes: { abbreviation: 'LGA' } }, context, commandMetadata);
    expect(changed.events).toEqual([{ type: 'FundingAgencyUpdated', data: { id, changes: { abbreviation: 'LGA' } } }]);
    expect(changed.state).toEqual({ status: 'active', fields: { name: 'Legacy Agency', abbreviation: 'LGA', url: homepage, catalogId: '' } });
    const changedAt = changed.position;
    if (!changedAt) throw new Error('the change recorded no event');

    // A create on the same stream is refused: the v1 event made it exist.
    await expect(
      executeCommand(resources.eventStore, fundingAgencies.fundingAgencyDecider, streamId, { type: 'CreateFundingAgency', id, fields: { name: 'x', abbreviation: 'x', url: 'x', catalogId: 'x' } }, context, commandMetadata),
    ).rejects.toSatisfy((error: unknown) => error instanceof DomainError && error.code === 'already_exists');

    // Global reads lift it too.
    // (Bounded wait: any older transaction still open on the server hides the log for a moment.)
    const read = await waitFor(async () => (await resources.eventStore.readAll(startOfLog, 10)).find((e) => e.id === eventId), 5_000, 'the v1 event in the global log');
    expect(read.schemaVersion).toBe(2);
    expect(read.data).toEqual({ id, name: 'Legacy Agency', abbreviation: 'LA', url: homepage, catalogId: '' });

    const expectedRow: AgencyRow = {
      id,
      name: 'Legacy Agency',
      abbreviation: 'LGA',
      url: homepage,
      catalog_id: '',
      created_at: new Date(createdAt),
      updated_at: new Date(context.now),
    };

    // (2) Catch-up by the running projector.
    const projector = await env.startProjector(resources, [fundingAgenciesProjection], 50);
    await waitFor(() => caughtUp(resources, [fundingAgenciesProjection.name], changedAt), 5_000, 'the projector to apply the v1 event');
    expect(await readAgencies(resources.db)).toEqual([expectedRow]);
    expect((await checkpointOf(resources.db, fundingAgenciesProjection.name)).eventsApplied).toBe(2);
    await env.stop(projector);

    // (3) Rebuild.
    await rebuild(resources, fundingAgenciesProjection);
    expect(await readAgencies(resources.db)).toEqual([expectedRow]);
    expect((await checkpointOf(resources.db, fundingAgenciesProjection.name)).eventsApplied).toBe(2);
  }, 30_000);
});

// ---------------------------------------------------------------------------------------
// g. Losing the connection that holds the election locks
// ---------------------------------------------------------------------------------------

describe('a projector whose lock connection drops', () => {
  const env = useDatabase();

  // Regression test: the lock connection ('cairn-projector-locks') used to be created once
  // and never replaced, so after it dropped a lone projector never applied an event again.
  // The projector now reconnects it from the poll and competes for the locks afresh.
  it('takes its projections back and goes on applying events', async () => {
    const { resources } = env;
    const projector = await env.startProjector(resources, projections, 50);
    const first = plannedCreate('before the drop');
    await appendInOrder(resources.eventStore, [first]);
    await waitFor(() => agencyById(resources.db, first.event.data.id), 5_000, 'the first event to be applied');

    const { rows } = await resources.pool.query<{ pid: number; terminated: boolean }>(
      `select pid, pg_terminate_backend(pid) as terminated from pg_stat_activity
       where datname = current_database() and application_name = 'cairn-projector-locks'`,
    );
    expect(rows.map((r) => r.terminated)).toEqual([true]);
    // Termination is asynchronous: let the backend go and the client read its end.
    const pids = rows.map((r) => r.pid);
    await waitFor(
      async () => (await resources.pool.query('select 1 from pg_stat_activity where pid = any($1::int[])', [pids])).rowCount === 0,
      5_000,
      'the lock connection to end',
    );
    await sleep(300);

    const second = plannedCreate('after the drop');
    await appendInOrder(resources.eventStore, [second]);
    await waitFor(() => agencyById(resources.db, second.event.data.id), 5_000, 'an event appended after the lock connection dropped to be applied');
    expect([...projector.active()].sort()).toEqual([...allProjectionNames].sort());
  }, 30_000);
});
