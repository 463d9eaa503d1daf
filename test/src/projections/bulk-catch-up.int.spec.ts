import { startOfLog, type AppendResult, type GlobalPosition } from '@cairn/platform';
import type { Resources } from '@cairn/cli';
import { catchUp, fundingAgenciesProjection, resetProjection, type Projection, type Projector } from '@cairn/projections';
import { describe, expect, it } from 'vitest';
import { useDatabase } from './support/environment.ts';
import { appendInOrder, interleave, planHistories, plannedCreate, type Planned } from './support/events.ts';
import { caughtUp, checkpointOf, countEvents, expectReached, expectedRows, faTypes, lastPosition, readAgencies } from './support/read-model.ts';
import { waitFor } from '../support/wait.ts';

// A projection that has applied nothing, with a long log ahead of it, is caught up the
// rebuild's way: a copy loaded with its keys only, indexed once, swapped in. The live
// table is then another table (a new oid), which tells the two paths apart.
const tableOid = async (resources: Resources) => {
  const { rows } = await resources.pool.query<{ oid: number }>("select 'public.funding_agencies'::regclass::oid::int as oid");
  return rows[0]?.oid;
};

const histories = (streams: number) => interleave(planHistories(streams, (i) => ({ updates: i % 3, deleted: i % 7 === 0 })));

/** A log of `streams` agencies' histories, the projection reset to its start, and the live table's oid then. */
async function logAtStart(resources: Resources, streams: number) {
  const planned = histories(streams);
  const appended = await appendInOrder(resources.eventStore, planned);
  await resetProjection(resources.db, fundingAgenciesProjection);
  // A replay reads only below the oldest transaction running on the server (other test
  // files run beside this one): wait until it sees the whole log, or the copy ends early.
  await waitFor(async () => (await resources.eventStore.readLog(startOfLog, 10_000, faTypes)).events.length >= planned.length, 20_000, 'the log to be visible to a replay');
  return { planned, appended, before: await tableOid(resources) };
}

/**
 * Catches up until the projection has reached `target`: a follower sees only events below
 * the oldest transaction still running on the server, and other test files run beside
 * this one, so one call may stop short of the newest events.
 */
async function catchUpUntil(resources: Resources, bulkCatchUpEvents: number, target: GlobalPosition) {
  await waitFor(async () => {
    expect(await catchUp({ ...resources, bulkCatchUpEvents }, fundingAgenciesProjection, 25)).toBe('idle');
    return caughtUp(resources, [fundingAgenciesProjection.name], target);
  }, 20_000, 'the projection to reach the log’s last event');
}

describe('catching up from the start of a long log', () => {
  const env = useDatabase();

  it('goes the rebuild’s way above the threshold and ends where a batch-by-batch catch-up ends', async () => {
    const { resources } = env;
    const planned = histories(60);
    const appended = await appendInOrder(resources.eventStore, planned);
    const total = await countEvents(resources, faTypes);

    // Below the threshold: batch by batch, into the live table.
    await resetProjection(resources.db, fundingAgenciesProjection);
    const before = await tableOid(resources);
    await catchUpUntil(resources, total + 1, lastPosition(appended));
    expect(await tableOid(resources)).toBe(before);
    const batchByBatch = await readAgencies(resources.db);
    expect(batchByBatch).toEqual(expectedRows(planned));

    // At the threshold: the copy, swapped in, with the same rows and the same checkpoint.
    await resetProjection(resources.db, fundingAgenciesProjection);
    await catchUpUntil(resources, total, lastPosition(appended));
    expect(await tableOid(resources)).not.toBe(before);
    expect(await readAgencies(resources.db)).toEqual(batchByBatch);
    const checkpoint = await checkpointOf(resources.db, fundingAgenciesProjection.name);
    expect(checkpoint.status).toBe('running');
    expect(checkpoint.eventsApplied).toBe(total);
    expectReached(checkpoint.position, lastPosition(appended));

    // Only from the start: a projection part of the way there goes on batch by batch.
    const more = histories(5);
    const moreAppended = await appendInOrder(resources.eventStore, more);
    const swapped = await tableOid(resources);
    await catchUpUntil(resources, 1, lastPosition(moreAppended));
    expect(await tableOid(resources)).toBe(swapped);
    expect(await readAgencies(resources.db)).toEqual(expectedRows([...planned, ...more]));
    expect((await checkpointOf(resources.db, fundingAgenciesProjection.name)).eventsApplied).toBe(total + more.length);
    expectReached((await checkpointOf(resources.db, fundingAgenciesProjection.name)).position, lastPosition(moreAppended));
  }, 60_000);
});

describe('a projector catching up from the start while writes go on', () => {
  const env = useDatabase();

  it('swaps the copy in, then goes on: every event of the log applied once, the rows the log says', async () => {
    const { resources } = env;
    const { planned, before } = await logAtStart(resources, 40);

    // Writes before, during and after the swap: they stop a few appends after the table changed.
    const written: Planned[] = [];
    const results: AppendResult[] = [];
    let afterSwap = -1;
    const writing = (async () => {
      for (let i = 0; afterSwap < 5 && i < 2_000; i += 1) {
        const create = plannedCreate(`during ${i}`, i);
        written.push(create);
        results.push(...(await appendInOrder(resources.eventStore, [create])));
        if (afterSwap >= 0) afterSwap += 1;
        else if ((await tableOid(resources)) !== before) afterSwap = 0;
      }
    })();
    const projector = await env.startProjector(resources, [fundingAgenciesProjection], 50, 20, { bulkCatchUpEvents: 10 });
    await writing;
    expect(afterSwap).toBe(5);
    await waitFor(() => caughtUp(resources, [fundingAgenciesProjection.name], lastPosition(results)), 20_000, 'the projector to catch up');
    await env.stop(projector);

    expect(await readAgencies(resources.db)).toEqual(expectedRows([...planned, ...written]));
    const checkpoint = await checkpointOf(resources.db, fundingAgenciesProjection.name);
    expect(checkpoint.eventsApplied).toBe(await countEvents(resources, faTypes));
    expect(checkpoint.eventsApplied).toBe(planned.length + written.length);
  }, 90_000);
});

describe('a catch-up from the start that meets an event it cannot apply', () => {
  const env = useDatabase();

  it('stops there, as the batch-by-batch way does, and leaves the live table alone', async () => {
    const { resources } = env;
    const planned = histories(20);
    const poison = plannedCreate('poison');
    await appendInOrder(resources.eventStore, [...planned, poison]);
    // Other files' transactions hold the replay's horizon back: the poison must be visible first.
    await waitFor(async () => (await resources.eventStore.readLog(startOfLog, 10_000, faTypes)).events.length >= planned.length + 1, 20_000, 'the log to be visible to a replay');
    const failing: Projection = {
      ...fundingAgenciesProjection,
      project(event) {
        if ((event.data as { name?: unknown }).name === 'poison') throw new Error('cannot digest poison');
        return fundingAgenciesProjection.project(event);
      },
    };
    await resetProjection(resources.db, failing);
    const before = await tableOid(resources);
    const warnings: string[] = [];
    const logger = { ...resources.logger, warn: (message: string) => void warnings.push(message) };
    expect(await catchUp({ ...resources, logger, bulkCatchUpEvents: 10 }, failing, 25)).toBe('stopped');

    // The copy was tried, given up and dropped; the live table was never swapped.
    expect(warnings).toContain('bulk catch-up stopped; going on batch by batch');
    const { rows: copies } = await resources.pool.query("select 1 from information_schema.schemata where schema_name like 'rebuild\\_%'");
    expect(copies).toHaveLength(0);
    expect(await tableOid(resources)).toBe(before);
    const stopped = await checkpointOf(resources.db, failing.name);
    expect(stopped.status).toBe('failed');
    expect(stopped.failed_event_id).toBe(poison.id);
    // Whole batches of 25 before the one holding the poison, which rolled back.
    const committed = Math.floor(planned.length / 25) * 25;
    expect(committed).toBeGreaterThan(0);
    expect(stopped.eventsApplied).toBe(committed);
    expect(await readAgencies(resources.db)).toEqual(expectedRows(planned.slice(0, committed)));
  }, 60_000);
});

describe('two catch-ups from the start at once', () => {
  const env = useDatabase();

  it('copy the log once: the second waits for the first and goes on from where it left the projection', async () => {
    const { resources } = env;
    const { planned } = await logAtStart(resources, 40);
    const other = await env.openMore();
    const rebuilt: string[] = [];
    const logger = { ...resources.logger, info: (message: string) => void rebuilt.push(message) };
    const outcomes = await Promise.all([
      catchUp({ ...resources, logger, bulkCatchUpEvents: 10 }, fundingAgenciesProjection, 25),
      catchUp({ ...other, logger, bulkCatchUpEvents: 10 }, fundingAgenciesProjection, 25),
    ]);
    expect(outcomes).toEqual(['idle', 'idle']);
    expect(rebuilt.filter((m) => m === 'projection rebuilt')).toHaveLength(1);
    expect(await readAgencies(resources.db)).toEqual(expectedRows(planned));
    expect((await checkpointOf(resources.db, fundingAgenciesProjection.name)).eventsApplied).toBe(planned.length);
  }, 60_000);
});

describe('a projector stopped in the middle of a catch-up from the start', () => {
  const env = useDatabase();

  it('keeps the copy and where it stood; the next projector resumes it and ends where the log says', async () => {
    const { resources } = env;
    const { planned, appended, before } = await logAtStart(resources, 40);

    // Stops its own projector once the copy has taken some pages (the projection is pure, so
    // this wrapper only watches).
    let projected = 0;
    let stopping: Promise<void> | null = null;
    const holder: { projector?: Projector } = {};
    const watched: Projection = {
      ...fundingAgenciesProjection,
      project(event) {
        projected += 1;
        if (projected === 30 && holder.projector) stopping = env.stop(holder.projector);
        return fundingAgenciesProjection.project(event);
      },
    };
    holder.projector = await env.startProjector(resources, [watched], 50, 10, { bulkCatchUpEvents: 10 });
    await waitFor(async () => stopping !== null, 20_000, 'the copy to take some pages');
    await stopping;

    expect(await tableOid(resources)).toBe(before);
    expect((await checkpointOf(resources.db, fundingAgenciesProjection.name)).eventsApplied).toBe(0);
    const { rows: saved } = await resources.pool.query<{ replayed: string }>('select replayed from projection_rebuilds where name = $1', [fundingAgenciesProjection.name]);
    expect(Number(saved[0]?.replayed)).toBeGreaterThan(0);
    expect(Number(saved[0]?.replayed)).toBeLessThan(planned.length);

    await env.startProjector(resources, [fundingAgenciesProjection], 50, 10, { bulkCatchUpEvents: 10 });
    await waitFor(() => caughtUp(resources, [fundingAgenciesProjection.name], lastPosition(appended)), 20_000, 'the next projector to catch up');
    expect(await tableOid(resources)).not.toBe(before);
    expect(await readAgencies(resources.db)).toEqual(expectedRows(planned));
    expect((await checkpointOf(resources.db, fundingAgenciesProjection.name)).eventsApplied).toBe(planned.length);
    const { rows: left } = await resources.pool.query('select 1 from projection_rebuilds where name = $1', [fundingAgenciesProjection.name]);
    expect(left).toHaveLength(0);
  }, 60_000);
});
