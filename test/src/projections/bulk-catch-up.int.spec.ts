import type { AppendResult } from '@cairn/platform';
import type { Resources } from '@cairn/cli';
import { catchUp, fundingAgenciesProjection, resetProjection, type Projection } from '@cairn/projections';
import { describe, expect, it } from 'vitest';
import { useDatabase } from './support/environment.ts';
import { appendInOrder, interleave, planHistories, plannedCreate, type Planned } from './support/events.ts';
import { caughtUp, checkpointOf, countEvents, expectReached, expectedRows, faTypes, lastPosition, readAgencies } from './support/read-model.ts';
import { waitFor } from './support/wait.ts';

// A projection that has applied nothing, with a long log ahead of it, is caught up the
// rebuild's way: a copy loaded with its keys only, indexed once, swapped in. The live
// table is then another table (a new oid), which tells the two paths apart.
const tableOid = async (resources: Resources) => {
  const { rows } = await resources.pool.query<{ oid: number }>("select 'public.funding_agencies'::regclass::oid::int as oid");
  return rows[0]?.oid;
};

const histories = (streams: number) => interleave(planHistories(streams, (i) => ({ updates: i % 3, deleted: i % 7 === 0 })));

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
    expect(await catchUp({ ...resources, bulkCatchUpEvents: total + 1 }, fundingAgenciesProjection, 25)).toBe('idle');
    expect(await tableOid(resources)).toBe(before);
    const batchByBatch = await readAgencies(resources.db);
    expect(batchByBatch).toEqual(expectedRows(planned));

    // At the threshold: the copy, swapped in, with the same rows and the same checkpoint.
    await resetProjection(resources.db, fundingAgenciesProjection);
    expect(await catchUp({ ...resources, bulkCatchUpEvents: total }, fundingAgenciesProjection, 25)).toBe('idle');
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
    expect(await catchUp({ ...resources, bulkCatchUpEvents: 1 }, fundingAgenciesProjection, 25)).toBe('idle');
    expect(await tableOid(resources)).toBe(swapped);
    expect(await readAgencies(resources.db)).toEqual(expectedRows([...planned, ...more]));
    expect((await checkpointOf(resources.db, fundingAgenciesProjection.name)).eventsApplied).toBe(total + more.length);
    expectReached((await checkpointOf(resources.db, fundingAgenciesProjection.name)).position, lastPosition(moreAppended));
  }, 60_000);

  it('in the projector, while writes go on: every event applied once, the same rows as the log says', async () => {
    const { resources } = env;
    await resetProjection(resources.db, fundingAgenciesProjection);
    const before = await tableOid(resources);
    const projector = await env.startProjector(resources, [fundingAgenciesProjection], 50, 20, { bulkCatchUpEvents: 10 });

    const writes: Planned[] = [];
    const results: AppendResult[] = [];
    for (let round = 0; round < 10; round += 1) {
      const batch = [plannedCreate(`during ${round}`, round), plannedCreate(`during ${round}b`, round)];
      writes.push(...batch);
      results.push(...(await appendInOrder(resources.eventStore, batch)));
    }
    await waitFor(() => caughtUp(resources, [fundingAgenciesProjection.name], lastPosition(results)), 20_000, 'the projector to catch up');
    await env.stop(projector);

    expect(await tableOid(resources)).not.toBe(before);
    const total = await countEvents(resources, faTypes);
    expect((await checkpointOf(resources.db, fundingAgenciesProjection.name)).eventsApplied).toBe(total);
    const rows = await readAgencies(resources.db);
    for (const write of writes) expect(rows.find((r) => r.id === write.event.data.id)?.name).toBe((write.event.data as { name: string }).name);
  }, 60_000);

  it('stops at an event the projection cannot apply, as the batch-by-batch way does, and leaves the live table alone', async () => {
    const { resources } = env;
    const poison = plannedCreate('poison');
    const [appended] = await appendInOrder(resources.eventStore, [poison]);
    if (!appended) throw new Error('nothing appended');
    const failing: Projection = {
      ...fundingAgenciesProjection,
      project(event) {
        if ((event.data as { name?: unknown }).name === 'poison') throw new Error('cannot digest poison');
        return fundingAgenciesProjection.project(event);
      },
    };
    await resetProjection(resources.db, failing);
    const before = await tableOid(resources);
    expect(await catchUp({ ...resources, bulkCatchUpEvents: 10 }, failing, 25)).toBe('stopped');

    expect(await tableOid(resources)).toBe(before);
    const stopped = await checkpointOf(resources.db, failing.name);
    expect(stopped.status).toBe('failed');
    expect(stopped.failed_event_id).toBe(poison.id);
    const rows = await readAgencies(resources.db);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => r.id === poison.event.data.id)).toBe(false);
  }, 60_000);
});
