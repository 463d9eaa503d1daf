import { projectionsList } from '@cairn/cli';
import { projections } from '@cairn/projections';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';

describe('cairn projections list', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('all');
  });
  afterAll(async () => h.close());

  it('lists every projection with its checkpoint, lag, state and last error', async () => {
    const admin = await h.createUser({ admin: true });
    await request(h.commandApp).post('/api/funding-agencies/').set(bearer(admin)).send({ name: 'Listed' }).expect(201);
    const { projections: listed } = await projectionsList(h.resources);
    expect(listed.map((p) => p.name)).toEqual(projections.map((p) => p.name));
    const agencies = listed.find((p) => p.name === 'funding-agencies');
    expect(agencies).toMatchObject({ lifecycle: 'inline', state: 'inline', lag_events: 0, lag_seconds: 0, last_error: null });
    for (const p of listed) {
      expect(p.version).toBeGreaterThan(0);
      expect(p.lag_events === null || p.lag_events >= 0).toBe(true);
    }
  });

  it('counts what an async projection has not applied yet', async () => {
    const row = await h.resources.db.selectFrom('projection_checkpoints').selectAll().where('name', '=', 'funding-agencies').executeTakeFirstOrThrow();
    // As if it were an async projection that stopped at the start of the log, with an error.
    await h.resources.db.updateTable('projection_checkpoints').set({ status: 'failed', major: '0', minor: '0', error: 'boom' }).where('name', '=', 'funding-agencies').execute();
    try {
      const agencies = (await projectionsList(h.resources)).projections.find((p) => p.name === 'funding-agencies');
      expect(agencies).toMatchObject({ lifecycle: 'async', state: 'failed', last_error: 'boom' });
      expect(agencies?.lag_events).toBeGreaterThanOrEqual(1);
      expect(agencies?.lag_seconds).toBeGreaterThanOrEqual(0);
    } finally {
      await h.resources.db.updateTable('projection_checkpoints').set({ status: row.status, major: row.major, minor: row.minor, error: row.error }).where('name', '=', 'funding-agencies').execute();
    }
  });
});
