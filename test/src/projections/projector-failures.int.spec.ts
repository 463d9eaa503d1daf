import { projectionsStatus } from '@cairn/cli';
import { comparePositions } from '@cairn/platform';
import { custom, fundingAgenciesProjection, type Projection } from '@cairn/projections';
import { describe, expect, it } from 'vitest';
import { useDatabase } from './support/environment.ts';
import { appendInOrder, plannedCreate } from './support/events.ts';
import { expectReached, agencyById, caughtUp, checkpointOf } from './support/read-model.ts';
import { waitFor } from '../support/wait.ts';

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
      project(event) {
        return [
          custom(async () => {
            const data = event.data as { name?: unknown };
            if (!fixed && data.name === 'poison') throw new Error('this projection cannot digest poison');
            seen.push(event.id);
          }),
        ];
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
    expectReached(others.position, normalAppended.position);
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
    expectReached(resumed.position, thirdAppended.position);
    expect(resumed.eventsApplied).toBe(3);
    expect(resumed.error).toBeNull();
    expect(seen).toEqual([poison.id, normal.id, third.id]);
  }, 30_000);
});
