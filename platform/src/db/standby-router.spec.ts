import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseBusyError } from './pool.ts';
import { createStandbyRouter, type StandbyRouter } from './standby-router.ts';
import { formatLsn } from './wal-position.ts';

/**
 * A server as the router sees it: the primary answers its WAL insert position, a standby its
 * replay position (or fails, as a stopped one does). The real servers are in
 * test/src/deploy/standbys.int.spec.ts; this pins the router's rules.
 */
function fakeServer(state: { lsn: bigint; down?: boolean }) {
  const pool = {
    async query(text: string) {
      if (state.down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
      if (text.includes('wal_block_size')) return { rows: [{ block: '8192', segment: String(16 * 1024 * 1024) }] };
      return { rows: [{ lsn: formatLsn(state.lsn), recovery: true }] };
    },
  } as unknown as pg.Pool;
  return { state, pools: { plain: pool, costly: pool } };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the standby router', () => {
  let router: StandbyRouter | null = null;
  afterEach(async () => {
    await router?.close();
    router = null;
  });

  const start = async (primaryLsn: bigint, replayed: readonly bigint[], maxLagMs = 10_000) => {
    const primary = fakeServer({ lsn: primaryLsn });
    const standbys = replayed.map((lsn) => fakeServer({ lsn }));
    router = await createStandbyRouter({ primary: primary.pools, standbys: standbys.map((s, i) => ({ name: `standby-${i + 1}`, pools: s.pools })), maxLagMs, pollMs: 10, waitPollMs: 2 });
    return { router, primary, standbys };
  };

  it('serves reads from the standbys that have caught up, in turn, and from the primary when none has', async () => {
    const { router: r, standbys } = await start(5000n, [5000n, 5000n]);
    const names = [r.pick(), r.pick(), r.pick(), r.pick()].map((t) => t.name);
    expect(new Set(names)).toEqual(new Set(['standby-1', 'standby-2']));
    expect(names[0]).not.toBe(names[1]);
    expect(r.pick().lagMs).toBe(0);
    for (const s of standbys) s.state.down = true;
    await sleep(50);
    expect(r.pick()).toMatchObject({ name: 'primary', standby: false });
  });

  it("waits for a standby to replay a token's WAL position, and gives the read to the primary past the wait", async () => {
    const { router: r, primary, standbys } = await start(5000n, [5000n]);
    primary.state.lsn = 9000n;
    const standby = standbys[0];
    if (!standby) throw new Error('one standby');
    setTimeout(() => (standby.state.lsn = 9000n), 30);
    const started = Date.now();
    expect(await r.pickReplayed(9000n, 1000)).toMatchObject({ name: 'standby-1', standby: true });
    expect(Date.now() - started).toBeLessThan(500);
    // Never replayed within the wait: the primary, which has every committed write.
    expect(await r.pickReplayed(20_000n, 50)).toMatchObject({ name: 'primary' });
  });

  it('counts a position just past a page header as the page boundary a standby stops at', async () => {
    const boundary = 8192n * 100n;
    const { router: r } = await start(boundary + 24n, [boundary]);
    expect(await r.pickReplayed(boundary + 24n, 10)).toMatchObject({ name: 'standby-1' });
    expect(r.status()[0]).toMatchObject({ inRotation: true, lagMs: 0 });
  });

  it('takes a standby out when it fails, and back once it answers and has caught up', async () => {
    const { router: r, primary, standbys } = await start(5000n, [5000n]);
    const standby = standbys[0];
    if (!standby) throw new Error('one standby');
    const target = r.pick();
    expect(r.failed(target, Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(r.pick().name).toBe('primary');
    // Back up, but behind the primary: not yet.
    primary.state.lsn = 7000n;
    await sleep(50);
    expect(r.status()[0]).toMatchObject({ reachable: true, inRotation: false });
    standby.state.lsn = 7000n;
    await sleep(50);
    expect(r.pick().name).toBe('standby-1');
  });

  it('sends a read that tried to write to the primary without blaming the standby, and leaves other errors alone', async () => {
    const { router: r } = await start(5000n, [5000n]);
    const target = r.pick();
    expect(r.failed(target, Object.assign(new Error('cannot execute INSERT in a read-only transaction'), { code: '25006' }))).toBe(true);
    expect(r.pick().name).toBe('standby-1');
    expect(r.failed(target, Object.assign(new Error('division by zero'), { code: '22012' }))).toBe(false);
    expect(r.failed({ ...target, name: 'primary', standby: false }, Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBe(false);
  });

  it('sends a read that found every connection to the standby busy to the primary, and keeps the standby in rotation', async () => {
    const { router: r, standbys } = await start(5000n, [5000n]);
    const target = r.pick();
    expect(target.name).toBe('standby-1');
    expect(r.failed(target, new DatabaseBusyError(5000))).toBe(true);
    expect(r.pick().name).toBe('standby-1');
    // Nor does a poll that met the same busy pool take it out.
    const busy = standbys[0]?.pools.plain as unknown as { query: () => Promise<never> };
    const query = busy.query;
    busy.query = async () => {
      throw new DatabaseBusyError(5000);
    };
    await sleep(40);
    busy.query = query;
    expect(r.status()[0]).toMatchObject({ reachable: true, inRotation: true });
  });

  it('takes out a standby further behind than the bound, with its lag', async () => {
    const { router: r, primary } = await start(5000n, [5000n], 40);
    primary.state.lsn = 9000n;
    await sleep(20);
    expect(r.status()[0]?.lagMs).toBeGreaterThan(0);
    await sleep(100);
    expect(r.status()[0]).toMatchObject({ inRotation: false });
    expect(r.pick().name).toBe('primary');
  });
});
