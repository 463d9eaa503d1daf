import { projectionsVerify } from '@cairn/cli';
import { startOfLog } from '@cairn/platform';
import { findProjection, rebuildBlueGreen, RebuildFailedError, RebuildInterruptedError } from '@cairn/projections';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { waitFor } from '../support/wait.ts';

let h: Harness;
let admin: User;

beforeAll(async () => {
  h = await startHarness('all');
  admin = await h.createUser({ admin: true });
  for (let i = 0; i < 60; i += 1) await request(h.commandApp).post('/api/funding-agencies/').set(bearer(admin)).send({ name: `Agency ${i}` }).expect(201);
});
afterAll(async () => {
  await h.close();
});

describe('an interrupted rebuild', () => {
  it('keeps its copy and where it stood, leaves the live read model serving, and the next rebuild resumes', async () => {
    const projection = findProjection('funding-agencies');
    if (!projection) throw new Error('no funding-agencies projection');
    const options = { ...h.resources, inline: true, batchSize: 10 };
    // The replay reads only below the oldest transaction running on the server; other test
    // files run beside this one, so first let the log's 60 events all be visible to it.
    await waitFor(async () => (await h.resources.eventStore.readLog(startOfLog, 100, projection.handles)).events.length >= 60, 20_000, 'the log to be visible to a replay');
    const controller = new AbortController();
    const seen: number[] = [];
    const interrupted = await rebuildBlueGreen(
      {
        ...options,
        signal: controller.signal,
        onProgress: (done) => {
          seen.push(done);
          if (done >= 20) controller.abort();
        },
      },
      projection,
    ).catch((error: unknown) => error);
    expect(interrupted).toBeInstanceOf(RebuildInterruptedError);
    const saved = await h.resources.pool.query<{ replayed: string }>("select replayed from projection_rebuilds where name = 'funding-agencies'");
    expect(Number(saved.rows[0]?.replayed)).toBe(20);
    const copy = await h.resources.pool.query<{ n: string }>('select count(*)::text as n from rebuild_funding_agencies.funding_agencies');
    expect(Number(copy.rows[0]?.n)).toBe(20);
    // The live read model is untouched and serves.
    const live = await request(h.queryApp).get('/api/funding-agencies/').set(bearer(admin));
    expect(live.body).toHaveLength(60);

    // The resumed replay takes the saved position: once it has committed a page, a crash
    // must not resume from there again (that page would be applied twice).
    const resumed: number[] = [];
    const savedDuring: Promise<number | null>[] = [];
    const savedRows = () => h.resources.pool.query("select 1 from projection_rebuilds where name = 'funding-agencies'").then((r) => r.rowCount);
    const result = await rebuildBlueGreen(
      {
        ...options,
        onProgress: (done) => {
          resumed.push(done);
          if (resumed.length === 1) savedDuring.push(savedRows());
        },
      },
      projection,
    );
    expect(await Promise.all(savedDuring)).toEqual([0]);
    expect(resumed[0]).toBe(30);
    expect(result.events).toBe(60);
    expect((await h.resources.pool.query("select 1 from projection_rebuilds where name = 'funding-agencies'")).rowCount).toBe(0);
    expect((await projectionsVerify(h.resources, ['funding-agencies'])).verified[0]?.differences).toBe(0);
    expect((await request(h.queryApp).get('/api/funding-agencies/').set(bearer(admin))).body).toHaveLength(60);
  });

  /** A rebuild of the funding agencies stopped after 20 of its 60 events, in batches of 10; `rebuild` runs the next one, with the first progress it reported. */
  async function interruptedRebuild(during?: (done: number) => void) {
    const projection = findProjection('funding-agencies');
    if (!projection) throw new Error('no funding-agencies projection');
    const options = { ...h.resources, inline: true, batchSize: 10 };
    const controller = new AbortController();
    const onProgress = (done: number) => {
      during?.(done);
      if (done >= 20) controller.abort();
    };
    const interrupted = await rebuildBlueGreen({ ...options, signal: controller.signal, onProgress }, projection).catch((error: unknown) => error);
    expect(interrupted).toBeInstanceOf(RebuildInterruptedError);
    return async () => {
      const progress: number[] = [];
      const result = await rebuildBlueGreen({ ...options, onProgress: (done) => void progress.push(done) }, projection);
      expect(result.events).toBe(60);
      return progress[0];
    };
  }

  /** The read model is whole after the rebuild, and serves. */
  async function readModelWhole() {
    expect((await projectionsVerify(h.resources, ['funding-agencies'])).verified[0]?.differences).toBe(0);
    expect((await request(h.queryApp).get('/api/funding-agencies/').set(bearer(admin))).body).toHaveLength(60);
  }

  it('starts over when the copy lacks a table of the projection (one a migration added since), and writes nothing of it in public', async () => {
    const rebuild = await interruptedRebuild();
    // As if funding_agencies were new: the copy of the interrupted rebuild never had it.
    await h.resources.pool.query('drop table rebuild_funding_agencies.funding_agencies');
    expect(await rebuild()).toBe(10);
    await readModelWhole();
  });

  it.each([
    ['lacks a column of a table (one a migration added since)', 'alter table rebuild_funding_agencies.funding_agencies drop column catalog_id'],
    ["has a column of another type than the live table's", 'alter table rebuild_funding_agencies.funding_agencies alter column name type varchar(300)'],
    ['lacks a key of a table', 'alter table rebuild_funding_agencies.funding_agencies drop constraint funding_agencies_pkey'],
  ])('starts over when the copy %s', async (_case, change) => {
    const rebuild = await interruptedRebuild();
    await h.resources.pool.query(change);
    expect(await rebuild()).toBe(10);
    await readModelWhole();
  });

  it('starts over when a migration ran since the stop, even one that changed no table of the copy (it may have changed what their rows hold)', async () => {
    const rebuild = await interruptedRebuild();
    await h.resources.pool.query("insert into schema_migrations (name) values ('9999_resume_probe.sql')");
    try {
      expect(await rebuild()).toBe(10);
    } finally {
      await h.resources.pool.query("delete from schema_migrations where name = '9999_resume_probe.sql'");
    }
  });

  it('starts over when a migration that began before the stop committed after it (its applied_at, its transaction\'s start, earlier than the save)', async () => {
    const rebuild = await interruptedRebuild();
    await h.resources.pool.query("insert into schema_migrations (name, applied_at) values ('9999_resume_race.sql', now() - interval '1 hour')");
    try {
      expect(await rebuild()).toBe(10);
    } finally {
      await h.resources.pool.query("delete from schema_migrations where name = '9999_resume_race.sql'");
    }
  });

  it('starts over when a migration was applied while the stopped replay ran, before the stop (the copy was made before it)', async () => {
    let applied: Promise<unknown> | undefined;
    const rebuild = await interruptedRebuild((done) => {
      if (done >= 10) applied ??= h.resources.pool.query("insert into schema_migrations (name) values ('9999_during_replay.sql')");
    });
    await applied;
    try {
      expect(await rebuild()).toBe(10);
    } finally {
      await h.resources.pool.query("delete from schema_migrations where name = '9999_during_replay.sql'");
    }
  });

  it('swaps nothing when a migration was applied while the rebuild ran: it fails, the live read model serves as it was, and the next rebuild swaps', async () => {
    const projection = findProjection('funding-agencies');
    if (!projection) throw new Error('no funding-agencies projection');
    let applied: Promise<unknown> | undefined;
    try {
      const failed = await rebuildBlueGreen(
        {
          ...h.resources,
          inline: true,
          batchSize: 10,
          onProgress: (done) => {
            if (done >= 20) applied ??= h.resources.pool.query("insert into schema_migrations (name) values ('9999_during_rebuild.sql')");
          },
        },
        projection,
      ).catch((error: unknown) => error);
      await applied;
      expect(failed).toBeInstanceOf(RebuildFailedError);
      expect((failed as Error).message).toBe('funding-agencies: a migration was applied while the rebuild ran; run the rebuild again');
      // Nothing of the failed rebuild is left: no copy, no saved point.
      expect((await h.resources.pool.query("select 1 from pg_namespace where nspname = 'rebuild_funding_agencies'")).rowCount).toBe(0);
      expect((await h.resources.pool.query("select 1 from projection_rebuilds where name = 'funding-agencies'")).rowCount).toBe(0);
      await readModelWhole();
      expect((await rebuildBlueGreen({ ...h.resources, inline: true, batchSize: 10 }, projection)).events).toBe(60);
      await readModelWhole();
    } finally {
      await h.resources.pool.query("delete from schema_migrations where name = '9999_during_rebuild.sql'");
    }
  });

  it('starts over from a point saved without the migrations it was made under (by an earlier version)', async () => {
    const rebuild = await interruptedRebuild();
    await h.resources.pool.query("update projection_rebuilds set migrations_seen = null where name = 'funding-agencies'");
    expect(await rebuild()).toBe(10);
  });

  it('resumes when the copy differs from the live tables only by an index a migration added since (the copy builds them after its replay)', async () => {
    const rebuild = await interruptedRebuild();
    await h.resources.pool.query('create index funding_agencies_resume_probe on funding_agencies (abbreviation)');
    try {
      expect(await rebuild()).toBe(30);
      const built = await h.resources.pool.query("select 1 from pg_indexes where schemaname = 'public' and indexname = 'funding_agencies_resume_probe'");
      expect(built.rowCount).toBe(1);
    } finally {
      await h.resources.pool.query('drop index if exists funding_agencies_resume_probe');
    }
  });
});
