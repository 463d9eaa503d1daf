import { randomUUID } from 'node:crypto';
import { currentVersionOf, DomainError, eventCatalog, fundingAgencies, operatorActor, type FundingAgencyId } from '@cairn/domain';
import { executeCommand, startOfLog } from '@cairn/platform';
import { fundingAgenciesProjection } from '@cairn/projections';
import { describe, expect, it } from 'vitest';
import { useDatabase } from './support/environment.ts';
import { insertRawEvent } from './support/events.ts';
import { caughtUp, checkpointOf, readAgencies, rebuild, type AgencyRow } from './support/read-model.ts';
import { waitFor } from '../support/wait.ts';

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
