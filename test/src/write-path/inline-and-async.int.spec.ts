import { comparePositions, startOfLog, type RecordedEvent } from '@cairn/platform';
import { catchUpTo, projections, rebuildBlueGreen, resetProjection, fundingAgenciesProjection } from '@cairn/projections';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.ts';
import { expectedRows, readAgencies } from '../projections/support/read-model.ts';
import type { FaEvent } from '../projections/support/events.ts';

type User = { id: string; token: string };

const bearer = (user: { token: string }) => ({ Authorization: `Bearer ${user.token}` });

/** Every row of every table of the projection, in a stable order. */
async function snapshot(h: Harness, tables: readonly string[]): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of tables) {
    const { rows } = await h.resources.pool.query(`select * from ${table}`);
    out[table] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

/** Runs `count` jobs on `workers` concurrent workers. */
async function concurrently(workers: number, count: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < count) await job(next++);
    }),
  );
}

/** The whole log up to its head, waiting while an open transaction elsewhere hides its newest events. */
async function everyEvent(h: Harness): Promise<RecordedEvent[]> {
  const head = await h.resources.eventStore.headPosition();
  const all: RecordedEvent[] = [];
  let after = startOfLog;
  for (let idle = 0; comparePositions(after, head) < 0; ) {
    const page = await h.resources.eventStore.readAll(after, 1000);
    if (page.length === 0) {
      if ((idle += 1) > 400) throw new Error('the log never reached its head');
      await new Promise((resolve) => setTimeout(resolve, 25));
      continue;
    }
    all.push(...page);
    after = page.at(-1)?.position ?? after;
  }
  return all;
}

describe('inline read models (PostgreSQL)', () => {
  let h: Harness;
  let admin: User;

  beforeAll(async () => {
    h = await startHarness('all');
    admin = await h.createUser({ admin: true });
  });
  afterAll(async () => h.close());

  it('build, under concurrent writers, the same read models as the async projector replaying the log', async () => {
    const users = await Promise.all(Array.from({ length: 12 }, () => h.createUser()));
    const organizations: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await request(h.commandApp).post('/api/organizations/').set(bearer(admin)).send({ name: `Inline Org ${i}` }).expect(201);
      organizations.push((res.body as { id: string }).id);
    }
    const orgOf = (i: number) => organizations[i % organizations.length] ?? '';
    // Memberships, groups whose members depend on them, agencies and projects, all at once.
    await concurrently(8, users.length, async (i) => {
      const user = users[i] as User;
      await request(h.commandApp).post(`/api/admin/users/${user.id}/organizations/`).set(bearer(admin)).send({ organization_id: orgOf(i), role: i % 4 === 0 ? 'admin' : 'member' }).expect(201);
    });
    const groups: string[] = [];
    await concurrently(3, organizations.length, async (i) => {
      const res = await request(h.commandApp).post('/api/groups/').set(bearer(admin)).send({ organization_id: orgOf(i), name: `Group ${i}` }).expect(201);
      groups[i] = (res.body as { id: string }).id;
    });
    await concurrently(8, 60, async (i) => {
      const user = users[i % users.length] as User;
      const org = i % users.length;
      switch (i % 6) {
        case 0:
          await request(h.commandApp).post(`/api/groups/${groups[org % groups.length]}/members/`).set(bearer(admin)).send({ user_id: user.id });
          return;
        case 1:
          // Leaving the organization ends the group memberships in it, racing the additions.
          if (i % 4 === 1) await request(h.commandApp).delete(`/api/admin/users/${user.id}/organizations/${orgOf(org)}/`).set(bearer(admin));
          return;
        case 2: {
          const res = await request(h.commandApp).post('/api/funding-agencies/').set(bearer(admin)).send({ name: `Agency ${i}`, abbreviation: `A${i}` }).expect(201);
          const id = (res.body as { id: string }).id;
          await request(h.commandApp).patch(`/api/funding-agencies/${id}/`).set(bearer(admin)).send({ url: `https://agency-${i}.example.org` }).expect(200);
          if (i % 4 === 0) await request(h.commandApp).delete(`/api/funding-agencies/${id}/`).set(bearer(admin)).expect(204);
          return;
        }
        case 3: {
          const res = await request(h.commandApp).post('/api/projects/').set(bearer(admin)).send({ name: `Project ${i}`, organization_id: orgOf(org) });
          if (res.status === 201) await request(h.commandApp).post(`/api/projects/${(res.body as { id: string }).id}/members/`).set(bearer(admin)).send({ user_id: user.id, role: 'viewer' });
          return;
        }
        case 4:
          await request(h.commandApp).patch(`/api/organizations/${orgOf(org)}/`).set(bearer(admin)).send({ name: `Renamed ${i}` });
          return;
        default:
          await request(h.commandApp).post(`/api/admin/users/${user.id}/organizations/`).set(bearer(admin)).send({ organization_id: orgOf(org + 1), role: 'member' });
      }
    });

    for (const projection of projections) {
      const live = await snapshot(h, projection.tables);
      // The async path: empty the read model and replay the whole log in batches.
      await resetProjection(h.resources.db, projection);
      // Until the head: an open transaction anywhere on the server may hide the newest events for a while.
      expect(await catchUpTo(h.resources, projection, await h.resources.eventStore.headPosition())).toBe('idle');
      expect(await snapshot(h, projection.tables), projection.name).toEqual(live);
    }
  });

  it('a rebuild while writers go on ends equal to the live model', async () => {
    const indexes = async () => (await h.resources.pool.query<{ indexdef: string }>("select indexdef from pg_indexes where schemaname = 'public' and tablename = 'funding_agencies' order by indexname")).rows;
    const indexesBefore = await indexes();
    const ids: string[] = [];
    let writing = true;
    const writers = Array.from({ length: 6 }, async (_, w) => {
      for (let i = 0; writing; i += 1) {
        const res = await request(h.commandApp).post('/api/funding-agencies/').set(bearer(admin)).send({ name: `During ${w}-${i}` }).expect(201);
        const id = (res.body as { id: string }).id;
        // Listed for the others to delete only once this writer is done with it.
        if (i % 3 === 0) await request(h.commandApp).patch(`/api/funding-agencies/${id}/`).set(bearer(admin)).send({ abbreviation: `D${i}` }).expect(200);
        ids.push(id);
        if (i % 5 === 0) await request(h.commandApp).delete(`/api/funding-agencies/${ids[Math.floor(ids.length / 2)]}/`).set(bearer(admin));
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await rebuildBlueGreen({ ...h.resources, inline: true, batchSize: 50 }, fundingAgenciesProjection);
    await rebuildBlueGreen({ ...h.resources, inline: true, batchSize: 50 }, fundingAgenciesProjection);
    writing = false;
    await Promise.all(writers);
    expect(ids.length).toBeGreaterThan(10);

    const planned = (await everyEvent(h))
      .filter((e) => fundingAgenciesProjection.handles.includes(e.type))
      .map((e) => ({ streamId: e.streamId, id: e.id, event: { type: e.type, data: e.data } as FaEvent, occurredAt: e.metadata.occurredAt }));
    expect(await readAgencies(h.resources.db)).toEqual(expectedRows(planned));
    const { rows } = await h.resources.pool.query<{ status: string }>("select status from projection_checkpoints where name = 'funding-agencies'");
    expect(rows[0]?.status).toBe('inline');
    // The swapped-in table has the same indexes, by the same names, as the migrations made.
    expect(await indexes()).toEqual(indexesBefore);
  });

  it('puts a stream in the global log in stream order, whatever the concurrency', async () => {
    const streamId = `order-${Date.now()}`;
    const metadata = { actorId: null, requestId: null, correlationId: streamId, causationId: null, occurredAt: new Date().toISOString() };
    await concurrently(12, 120, async (i) => {
      await h.resources.eventStore.appendToStream(streamId, [{ id: crypto.randomUUID(), type: 'OrderProbed', schemaVersion: 1, data: { i }, metadata }], { expectedVersion: 'any' });
    });
    const inLog = (await everyEvent(h)).filter((e) => e.streamId === streamId);
    expect(inLog.map((e) => e.streamVersion)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    for (let i = 1; i < inLog.length; i += 1) expect(comparePositions((inLog[i - 1] as RecordedEvent).position, (inLog[i] as RecordedEvent).position)).toBe(-1);
  });
});
