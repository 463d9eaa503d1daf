import { catchUp, fundingAgenciesProjection, projections, resetProjection } from '@cairn/projections';
import { describe, expect, it } from 'vitest';
import { useDatabase } from './support/environment.ts';
import { appendInOrder, interleave, planHistories, plannedCreate } from './support/events.ts';
import { expectReached, agencyById, allProjectionNames, caughtUp, checkpointOf, countEvents, expectedRows, faTypes, lastEventInLog, lastPosition, readAgencies, rebuild } from './support/read-model.ts';
import { sleep, waitFor } from '../support/wait.ts';

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
    expectReached(checkpoint.position, await lastEventInLog(writer));
  }, 60_000);
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
