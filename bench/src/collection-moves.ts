/**
 * The collections bench's moves of a subtree (collections.bench.ts, `--moves N`): a move
 * planned on the seeded forest, its statements captured once, then moved back and forth
 * over HTTP and timed until every read model shows it, beside the bare limit of its
 * read-model statements.
 */
import type { Resources } from '@cairn/cli';
import type pg from 'pg';
import { landmarks } from './collection-forest.ts';
import type { keepAliveClient } from './keep-alive-client.ts';
import { countOf, idOf } from './pool-queries.ts';
import { captureStatements, type Statement } from './request-sql.ts';
import type { SqlTrace } from './sql-trace.ts';
import { median } from './stats.ts';
import { printTable, ratio } from './table.ts';

export type MovePlan = {
  readonly ownerEmail: string;
  readonly moved: string;
  readonly source: string;
  readonly target: string;
  /** A collection at the bottom of the moved subtree, and an asset in it that the observer reads only through the source's entry. */
  readonly leaf: string;
  readonly asset: string;
  readonly collections: number;
  readonly assets: number;
};

export async function planMove(pool: pg.Pool, resources: Resources): Promise<MovePlan> {
  const byTitle = (title: string) => idOf(pool, 'select id from collections where title = $1', [title]);
  const moved = await byTitle(landmarks.moved);
  const source = await byTitle(landmarks.moveSource);
  const target = await byTitle(landmarks.moveTarget);
  const { rows } = await pool.query<{ asset: string; leaf: string }>(
    `select a.id as asset, c.id as leaf from assets a join collections c on c.id = a.collection_ids[1]
     where c.parent_ids @> array[$1::uuid] and not '*' = any(a.readers) order by cardinality(c.parent_ids) desc, a.created_at desc limit 1`,
    [moved],
  );
  const found = rows[0];
  if (!found) throw new Error('the moved subtree holds no asset that only its entries show to the observer');
  const collections = await countOf(pool, 'select count(*)::text as n from collections where id = $1 or parent_ids @> array[$1::uuid]', [moved]);
  const assets = await countOf(pool, 'select count(*)::text as n from assets where collection_ids && array(select id from collections where id = $1 or parent_ids @> array[$1::uuid])', [moved]);
  const owner = (await resources.pool.query<{ email: string }>('select u.email from collections c join users u on u.id = c.owner_user_id where c.id = $1', [moved])).rows[0]?.email ?? '';
  return { ownerEmail: owner, moved, source, target, leaf: found.leaf, asset: found.asset, collections, assets };
}

export type MoveCapture = { readonly ms: number; readonly statements: number; readonly slowest: readonly string[]; readonly readModel: readonly Statement[] };

const patchParent = (client: ReturnType<typeof keepAliveClient>, token: string, move: MovePlan, parent: string) =>
  client.request('PATCH', `/api/collections/${move.moved}/`, { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, JSON.stringify({ parent_id: parent }));

/**
 * One move source → target through the service in this process, traced, then back: where
 * its time went, statement by statement, and its read-model statements (the collections
 * projection's) for the bare limit.
 */
export async function captureMove(trace: SqlTrace, move: MovePlan, writes: ReturnType<typeof keepAliveClient>, token: string): Promise<MoveCapture> {
  const started = performance.now();
  const { reply, statements } = await captureStatements(trace, () => patchParent(writes, token, move, move.target));
  const ms = performance.now() - started;
  if (reply.status !== 200) throw new Error(`the traced move: ${reply.status} ${reply.body.slice(0, 200)}`);
  const slowest = [...trace.statements]
    .sort((a, b) => b.end - b.start - (a.end - a.start))
    .slice(0, 6)
    .map((s) => `${(s.end - s.start).toFixed(1)} ms ${s.name ?? s.text.replace(/\s+/g, ' ').trim().slice(0, 90)}`);
  const back = await patchParent(writes, token, move, move.source);
  if (back.status !== 200) throw new Error(`moving back: ${back.status} ${back.body.slice(0, 200)}`);
  return { ms, statements: statements.length, slowest, readModel: statements.filter((s) => /^\s*update\s+"?collections"?\s/i.test(s.text)) };
}

export type MoveRound = { readonly to: string; readonly status: number; readonly patchMs: number; readonly visibleMs: number | null; readonly probes: number };

/**
 * Moves the subtree back and forth `count` times through the service and times, from the
 * moment each PATCH is sent, until every read model shows it: the owner sees the new
 * parent in the chain of a collection at the bottom of the subtree and the moved
 * collection among the new parent's children; the observer, who reads through the
 * source's entry only, can open that collection and an asset in it under the source and
 * neither under the target. Probed every 20 ms (four GETs at once), so the figure is the
 * end of the first probe that saw all of it.
 */
export async function measureMoves(http: ReturnType<typeof keepAliveClient>, move: MovePlan, tokens: { owner: string; observer: string }, count: number): Promise<MoveRound[]> {
  const get = (token: string, path: string) => http.request('GET', path, { authorization: `Bearer ${token}` });
  const shows = async (parent: string) => {
    const underTarget = parent === move.target;
    const [leaf, seenLeaf, seenAsset, children] = await Promise.all([
      get(tokens.owner, `/api/collections/${move.leaf}/`),
      get(tokens.observer, `/api/collections/${move.leaf}/`),
      get(tokens.observer, `/api/assets/${move.asset}/`),
      get(tokens.owner, `/api/collections/?parent_id=${parent}&limit=1000`),
    ]);
    const chain = leaf.status === 200 ? (JSON.parse(leaf.body) as { parent_ids: string[] }).parent_ids : [];
    const listed = children.status === 200 && (JSON.parse(children.body) as { id: string }[]).some((c) => c.id === move.moved);
    const observer = underTarget ? seenLeaf.status === 404 && seenAsset.status === 404 : seenLeaf.status === 200 && seenAsset.status === 200;
    return chain.includes(parent) && listed && observer;
  };
  if (!(await shows(move.source)) || (await shows(move.target))) throw new Error('before the moves, the probes do not tell the source from the target');
  const rounds: MoveRound[] = [];
  for (let i = 0; i < count; i += 1) {
    const to = i % 2 === 0 ? move.target : move.source;
    const started = performance.now();
    let patchMs = 0;
    let status = 0;
    const patched = patchParent(http, tokens.owner, move, to).then((reply) => {
      patchMs = performance.now() - started;
      status = reply.status;
    });
    let visibleMs: number | null = null;
    let probes = 0;
    while (performance.now() - started < 60_000) {
      probes += 1;
      if (await shows(to)) {
        visibleMs = performance.now() - started;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await patched;
    rounds.push({ to: to === move.target ? 'source → target' : 'target → source', status, patchMs, visibleMs, probes });
    console.log(`  move ${i + 1} (${rounds.at(-1)?.to}): PATCH ${status} in ${patchMs.toFixed(0)} ms, every read model shows it at ${visibleMs === null ? 'never (60 s)' : `${visibleMs.toFixed(0)} ms`} (${probes} probes)`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return rounds;
}

/** The rounds, and the bare limit: the traced move's read-model statements replayed in a transaction rolled back, three times. */
export async function reportMoves(pool: pg.Pool, move: MovePlan, capture: MoveCapture, rounds: readonly MoveRound[]): Promise<void> {
  const bare: number[] = [];
  const perStatement: number[][] = capture.readModel.map(() => []);
  for (let i = 0; i < 3; i += 1) {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const started = performance.now();
      for (const [k, s] of capture.readModel.entries()) {
        const at = performance.now();
        await client.query(s.text, [...s.values]);
        perStatement[k]?.push(performance.now() - at);
      }
      bare.push(performance.now() - started);
    } finally {
      await client.query('rollback');
      client.release();
    }
  }
  const limitMs = median(bare);
  printTable(
    `Moving a subtree of ${move.collections.toLocaleString('en-US')} collections holding ${move.assets.toLocaleString('en-US')} assets (PATCH parent_id as the owner; one client; probes every 20 ms)`,
    ['move', 'status', 'PATCH ms', 'visible everywhere ms', 'bare read-model SQL ms', 'visible / bare', 'target', 'met'],
    rounds.map((r, i) => [`${i + 1}: ${r.to}`, r.status, r.patchMs, r.visibleMs, limitMs, ratio(r.visibleMs, limitMs), '≤10,000 ms', r.visibleMs !== null && r.visibleMs <= 10_000 ? 'yes' : 'NO']),
  );
  console.log(`traced move (service in this process): ${capture.ms.toFixed(0)} ms, ${capture.statements} statements; slowest: ${capture.slowest.join(' | ')}`);
  console.log(`bare read-model statements (${capture.readModel.length}, median of 3 in a rolled-back transaction): ${capture.readModel.map((s, k) => `${median(perStatement[k] ?? []).toFixed(1)} ms "${s.text.replace(/\s+/g, ' ').trim().slice(0, 70)}…"`).join(' | ')}`);
}

