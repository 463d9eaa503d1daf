import { fileURLToPath } from 'node:url';
import { catchUp, fundingAgenciesProjection } from '@cairn/projections';
import { describe, expect, it } from 'vitest';
import { runChild } from './support/child-process.ts';
import { useDatabase } from './support/environment.ts';
import { appendInOrder, interleave, planHistories } from './support/events.ts';
import { expectReached, checkpointOf, countEvents, expectedRows, faTypes, readAgencies, rebuild } from './support/read-model.ts';

const crashingProjectorScript = fileURLToPath(new URL('./fixtures/crashing-projector.ts', import.meta.url));

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
    expectReached(checkpoint.position, appended.at(-1)?.position);

    await rebuild(resources, fundingAgenciesProjection);
    expect(await readAgencies(resources.db)).toEqual(snapshot);
    const rebuilt = await checkpointOf(resources.db, fundingAgenciesProjection.name);
    expect(rebuilt.eventsApplied).toBe(planned.length);
    expectReached(rebuilt.position, appended.at(-1)?.position);
    expect(rebuilt.status).toBe('running');
  }, 60_000);
});
