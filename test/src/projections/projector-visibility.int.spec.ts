import { startOfLog } from '@cairn/platform';
import { fundingAgenciesProjection, projections } from '@cairn/projections';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useDatabase } from './support/environment.ts';
import { appendInOrder, insertRawEvent, plannedCreate } from './support/events.ts';
import { expectReached, agencyById, allProjectionNames, caughtUp, checkpointOf } from './support/read-model.ts';
import { sleep, waitFor } from '../support/wait.ts';

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
    expectReached(after.position, appended.position);
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
    expectReached(after.position, appended.position);
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
    expectReached(after.position, appended.position);
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
    // Let the retries of the first wakes run out (10 + 20 + ... + 2,560 ms).
    await sleep(5_500);

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
