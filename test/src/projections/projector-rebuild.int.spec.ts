import { startOfLog } from '@cairn/platform';
import { assetsProjection, fundingAgenciesProjection, insert, rebuildBlueGreen, RebuildFailedError, type Projection } from '@cairn/projections';
import { describe, expect, it } from 'vitest';
import { useDatabase } from './support/environment.ts';
import { appendInOrder, interleave, planHistories, plannedCreate } from './support/events.ts';
import { caughtUp, checkpointOf, expectedRows, faTypes, lastPosition, readAgencies } from './support/read-model.ts';
import { sleep, waitFor } from '../support/wait.ts';

describe('a blue-green rebuild', () => {
  const env = useDatabase();

  it('never shows readers an empty or partial read model, and includes events appended meanwhile', async () => {
    const { resources } = env;
    const planned = interleave(planHistories(60, (i) => ({ updates: i % 4, deleted: i % 9 === 0 })));
    const appended = await appendInOrder(resources.eventStore, planned);
    await env.startProjector(resources, [fundingAgenciesProjection], 200);
    await waitFor(() => caughtUp(resources, ['funding-agencies'], lastPosition(appended)), 15_000, 'the first catch-up');
    const before = (await readAgencies(resources.db)).length;
    expect(before).toBeGreaterThan(0);

    // Readers and a writer keep going during the rebuild.
    let reading = true;
    let fewest = Number.POSITIVE_INFINITY;
    const reader = (async () => {
      while (reading) {
        const { rows } = await resources.pool.query<{ n: number }>('select count(*)::int as n from funding_agencies');
        fewest = Math.min(fewest, rows[0]?.n ?? 0);
        await sleep(2);
      }
    })();
    const during = Array.from({ length: 20 }, (_, i) => plannedCreate(`During rebuild ${i}`, i));
    const writer = appendInOrder(resources.eventStore, during);

    const outcome = await rebuildBlueGreen(resources, fundingAgenciesProjection);
    const duringResults = await writer;
    await waitFor(() => caughtUp(resources, ['funding-agencies'], lastPosition(duringResults)), 15_000, 'the tail after the swap');
    reading = false;
    await reader;

    expect(fewest).toBeGreaterThanOrEqual(before);
    expect(outcome.events).toBeGreaterThanOrEqual(planned.length);
    expect(await readAgencies(resources.db)).toEqual(expectedRows([...planned, ...during]));
    const checkpoint = await checkpointOf(resources.db, 'funding-agencies');
    expect(checkpoint?.status).toBe('running');
    const schemas = await resources.pool.query("select 1 from information_schema.schemata where schema_name like 'rebuild\\_%'");
    expect(schemas.rows).toHaveLength(0);
  }, 60_000);

  it('leaves the live read model untouched when an event cannot be applied', async () => {
    const { resources } = env;
    const before = await readAgencies(resources.db);
    const poisoned: Projection = {
      ...fundingAgenciesProjection,
      project: (event) => {
        if ((event.data as { name?: string }).name === 'During rebuild 3') throw new Error('cannot apply this one');
        return fundingAgenciesProjection.project(event);
      },
    };
    await expect(rebuildBlueGreen(resources, poisoned)).rejects.toBeInstanceOf(RebuildFailedError);
    expect(await readAgencies(resources.db)).toEqual(before);
    expect((await checkpointOf(resources.db, 'funding-agencies'))?.status).toBe('running');
    const schemas = await resources.pool.query("select 1 from information_schema.schemata where schema_name like 'rebuild\\_%'");
    expect(schemas.rows).toHaveLength(0);
  }, 60_000);

  it('leaves the live read model untouched when the database refuses a page, and the next rebuild runs on the same pool', async () => {
    const { resources } = env;
    const before = await readAgencies(resources.db);
    // A page of the replay goes to the database as one round trip: here its insert breaks a
    // NOT NULL constraint in the middle of the log.
    const refused: Projection = {
      ...fundingAgenciesProjection,
      project: (event) =>
        (event.data as { name?: string }).name === 'During rebuild 3'
          ? fundingAgenciesProjection.project(event).map((op) => (op.kind === 'insert' ? { ...op, row: { ...op.row, name: null } } : op))
          : fundingAgenciesProjection.project(event),
    };
    const error = await rebuildBlueGreen(resources, refused).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RebuildFailedError);
    expect((error as Error).message).toMatch(/null value in column "name"/);
    expect(await readAgencies(resources.db)).toEqual(before);
    expect((await checkpointOf(resources.db, 'funding-agencies'))?.status).toBe('running');
    const schemas = await resources.pool.query("select 1 from information_schema.schemata where schema_name like 'rebuild\\_%'");
    expect(schemas.rows).toHaveLength(0);

    await rebuildBlueGreen(resources, fundingAgenciesProjection);
    expect(await readAgencies(resources.db)).toEqual(before);
  }, 60_000);

  it('runs when a projection starts with a new version, keeping the rows in place meanwhile', async () => {
    const { resources } = env;
    const before = await readAgencies(resources.db);
    const bumped: Projection = { ...fundingAgenciesProjection, version: fundingAgenciesProjection.version + 1 };
    await env.startProjector(resources, [bumped], 200);
    await waitFor(async () => (await checkpointOf(resources.db, 'funding-agencies'))?.version === bumped.version, 15_000, 'the rebuild at start');
    expect(await readAgencies(resources.db)).toEqual(before);
  }, 60_000);
});

describe('a rebuild whose inserts meet rows already in the copy', () => {
  const env = useDatabase();

  // A rebuild first sends inserts without ON CONFLICT; a page that meets a row already
  // there is sent again as planned. Here every update first inserts its row again (which
  // does nothing: the row is there), in the page that created it or in a later one.
  it('ends with the rows the log says, as if each insert had kept its ON CONFLICT', async () => {
    const { resources } = env;
    const planned = interleave(planHistories(30, (i) => ({ updates: 1 + (i % 3), deleted: i % 5 === 0 })));
    await appendInOrder(resources.eventStore, planned);
    // Other files' transactions on the shared server hold the replay's horizon back: let the
    // whole log be visible to it first, or the rebuild replays part of it (a flake seen in CI-like runs).
    await waitFor(async () => (await resources.eventStore.readLog(startOfLog, 10_000, faTypes)).events.length >= planned.length, 20_000, 'the log to be visible to a replay');
    const meeting: Projection = {
      ...fundingAgenciesProjection,
      project: (event) => {
        const ops = fundingAgenciesProjection.project(event);
        if (event.type !== 'FundingAgencyUpdated') return ops;
        const id = (event.data as { id: string }).id;
        const at = event.metadata.occurredAt;
        const row = { id, name: 'placeholder', abbreviation: '', url: '', catalog_id: '', created_at: at, updated_at: at };
        return [insert('funding_agencies', row, { key: ['id'] }), ...ops];
      },
    };
    const logged: string[] = [];
    const logger = { ...resources.logger, info: (message: string) => void logged.push(message) };
    const outcome = await rebuildBlueGreen({ ...resources, logger, batchSize: 7 }, meeting);
    expect(logged).toContain('rebuild page met rows already in the copy; inserts keep ON CONFLICT from here');
    expect(outcome.events).toBe(planned.length);
    expect(await readAgencies(resources.db)).toEqual(expectedRows(planned));
  }, 60_000);
});

describe('a rebuild of the assets read model', () => {
  const env = useDatabase();

  it('keeps the per-column statistics targets the listing relies on (assets.created_at: 1,000 slices)', async () => {
    const { resources } = env;
    const target = async () =>
      (await resources.pool.query<{ t: number }>("select attstattarget::integer as t from pg_attribute where attrelid = 'assets'::regclass and attname = 'created_at'")).rows[0]?.t;
    expect(await target()).toBe(1000);
    await rebuildBlueGreen(resources, assetsProjection);
    expect(await target()).toBe(1000);
  });
});
