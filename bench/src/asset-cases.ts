/**
 * The requests `npm run bench -- assets` measures (assets.bench.ts): their filters' values
 * picked on the seeded data, each sent once to the service in this process so that the
 * statements it sends are captured for the bare-SQL side, and the deep page's cursor.
 */
import { timeOrderedId } from '@cairn/platform';
import { createReadDb, viewerCte } from '@cairn/projections';
import type pg from 'pg';
import { topics } from './asset-data.ts';
import { deepPageCursor } from './asset-cursor.ts';
import { callerEmail } from './asset-seed.ts';
import { landmarks } from './collection-forest.ts';
import type { Reply } from './keep-alive-client.ts';
import { captureStatements, createForNewAsset, withValuesReplaced, type Statement } from './request-sql.ts';
import type { installSqlTrace } from './sql-trace.ts';

/** One measured request: how to send it over HTTP, and the statements the service sent for it. */
export type Case = {
  readonly label: string;
  readonly kind: 'listing' | 'deep' | 'filtered' | 'read' | 'create';
  readonly matches: number | null;
  readonly http: (i: number) => { method: string; path: string; body?: string };
  readonly ok: number;
  /** The statements of the i-th bare-SQL operation. */
  readonly sql: (i: number) => Statement[];
  readonly captured: readonly Statement[];
  /** The same statements with the caller's principals as a parameter instead of the `me` CTE (listings only). */
  readonly variant?: readonly Statement[] | null | undefined;
  /** Issue 24's rate for this request when it misses the cache (`--cache off`); null: the first page's rule (deep pages) or none. */
  readonly missTarget: number | null;
};

/** What the service's `me` CTE (viewerCte) holds for the caller, column by column, with the SQL type of each. */
type Viewer = ReadonlyMap<string, { readonly value: unknown; readonly type: string }>;

async function viewerOf(pool: pg.Pool, caller: string): Promise<Viewer> {
  const cte = viewerCte(caller).compile(createReadDb(pool));
  const { rows } = await pool.query<Record<string, unknown>>(`with ${cte.sql} select * from me`, [...cte.parameters]);
  const types: Record<string, string> = { p: 'text[]', vc: 'uuid[]' };
  return new Map(Object.entries(rows[0] ?? {}).map(([column, value]) => [column, { value, type: types[column] ?? 'unknown' }]));
}

/**
 * A listing statement with what the service reads from its materialized `me` CTE (the
 * caller's principals, the collections they read) passed as parameters instead: the
 * planner then knows them when it plans (the readers' statistics), which is what the
 * suggestions in docs/benchmarks.md rest on. Null when the statement uses `me` otherwise.
 */
function withViewerAsParameters(statement: Statement, viewer: Viewer): Statement | null {
  const values = [...statement.values];
  const index = new Map<string, number>();
  let unknown = false;
  const text = statement.text
    .replace(/\bme(?:_\d+)?\.(\w+)\b/g, (_, column: string) => {
      const field = viewer.get(column);
      if (!field || field.type === 'unknown') {
        unknown = true;
        return `me.${column}`;
      }
      if (!index.has(column)) {
        values.push(field.value);
        index.set(column, values.length);
      }
      return `$${index.get(column) ?? 0}::${field.type}`;
    })
    .replace(/\bfrom me, /g, 'from ');
  if (unknown || /\bfrom me\b|\bme\.\w/.test(text)) return null;
  return { text, values };
}

const count = async (pool: pg.Pool, where: string, values: unknown[] = []) =>
  Number((await pool.query<{ n: string }>(`select count(*)::text as n from assets where ${where}`, values)).rows[0]?.n ?? 0);

/** What each statement is, in a few words: its name, or the start of its text. */
const statementHeads = (statements: readonly Statement[]) => statements.map((s) => s.name ?? `"${s.text.replace(/\s+/g, ' ').trim().slice(0, 60)}…"`).join('; ');

export type Send = (method: string, path: string, body?: string) => Promise<Reply>;

/** The large collection and one holding about 100 assets, when the data has collections (`--collections`). */
async function collectionsOfInterest(pool: pg.Pool): Promise<{ label: string; id: string; n: number }[]> {
  const has = await pool.query<{ n: number }>('select count(*)::int as n from collection_assets');
  if ((has.rows[0]?.n ?? 0) === 0) return [];
  const large = await pool.query<{ id: string; n: number }>(
    'select k.id, (select count(*)::int from collection_assets c where c.collection_id = k.id) as n from collections k where k.title = $1',
    [landmarks.large],
  );
  const typical = await pool.query<{ id: string; n: number }>('select collection_id as id, count(*)::int as n from collection_assets group by collection_id order by abs(count(*) - 100), collection_id limit 1');
  return [
    ...large.rows.map((r) => ({ label: 'the large collection', ...r })),
    ...typical.rows.map((r) => ({ label: `a collection of ${r.n}`, ...r })),
  ];
}

/**
 * Picks the filters' values on the seeded data, walks the cursor to the deep page, and
 * captures the statements of one request of each kind from the service in this process.
 */
export async function prepareCases(pool: pg.Pool, send: Send, trace: ReturnType<typeof installSqlTrace>, options: { readonly page: number }): Promise<Case[]> {
  const total = await count(pool, 'true');
  const limit = 100;
  const page = Math.min(options.page, Math.floor(total / limit));

  // A tag pair that co-occurs on about 1 % of assets: the most common tag and the second.
  const tags = (await pool.query<{ t: string }>('select t from assets, unnest(tags) t group by t order by count(*) desc, t limit 2')).rows.map((r) => r.t);
  const instrument = 'INST-007';
  const titlePrefix = 'coastal sed';
  const q = topics[14]?.slice(-5) ?? 'frost';
  const indexQuery = { where: { and: [{ field: 'tags', op: 'contains', value: tags[0] ?? '' }, { field: 'metadata.instrument', op: 'eq', value: instrument }] } };
  // A record type of 4 % and the owner with the most assets (the seed's owners are skewed).
  const recordType = 'notebook';
  const owner = (await pool.query<{ id: string; n: number }>('select owner_id as id, count(*)::int as n from assets group by owner_id order by count(*) desc limit 1')).rows[0] ?? { id: '', n: 0 };
  // With --collections: the large collection (20 % of the assets) and one of about 100.
  const collectionsToList = await collectionsOfInterest(pool);

  const list = (params: string) => `/api/assets/?limit=${limit}${params}`;
  const probe = await send('GET', list(''));
  if (probe.status !== 200) throw new Error(`the listing answers ${probe.status}: ${probe.body.slice(0, 200)}`);

  // The deep pages' cursors, worked out in SQL (walking every page before them costs as
  // many requests), then checked: the service walks the last few pages to the deep one and
  // must hand out the same cursor.
  const caller = (await pool.query<{ id: string }>('select id from users where email = $1', [callerEmail])).rows[0]?.id ?? '';
  const viewer = await viewerOf(pool, caller);
  const walkFrom = Math.max(2, page - 3);
  const walkStarted = performance.now();
  let cursor = await deepPageCursor(pool, caller, walkFrom, limit);
  for (let at = walkFrom; at < page; at += 1) {
    const reply = await send('GET', list(`&cursor=${encodeURIComponent(cursor)}`));
    const next = reply.headers['x-next-cursor'];
    if (reply.status !== 200 || typeof next !== 'string') throw new Error(`page ${at}: ${reply.status}, no X-Next-Cursor`);
    cursor = next;
  }
  const computed = await deepPageCursor(pool, caller, page, limit);
  if (computed !== cursor) throw new Error(`the cursor of page ${page} worked out in SQL (${computed}) is not the one the service gave (${cursor})`);
  const middle = Math.max(2, Math.floor(page / 2));
  const middleCursor = await deepPageCursor(pool, caller, middle, limit);
  console.log(`cursors of pages ${middle.toLocaleString('en-US')} and ${page.toLocaleString('en-US')} worked out in SQL; the service walked pages ${walkFrom}..${page} to the same cursor in ${((performance.now() - walkStarted) / 1000).toFixed(1)} s`);

  const ids = (await pool.query<{ id: string }>('select id from assets order by random() limit 10000')).rows.map((r) => r.id);

  const captured = async (method: string, path: string, body?: string) => {
    await send(method, path, body); // warm: the cursor key, caches
    const { reply, statements } = await captureStatements(trace, () => send(method, path, body));
    return { reply, statements };
  };
  const cases: Case[] = [];
  const listing = async (label: string, kind: Case['kind'], missTarget: number | null, path: string, matches: number | null, method = 'GET', body?: string) => {
    const { reply, statements } = await captured(method, path, body);
    if (reply.status !== 200) throw new Error(`${label}: ${reply.status} ${reply.body.slice(0, 200)}`);
    const headers = Object.entries(reply.headers)
      .filter(([k]) => /^x-(page|has|post|scan)/.test(k))
      .map(([k, v]) => `${k}: ${String(v)}`)
      .join(', ');
    console.log(`  ${label}: ${(JSON.parse(reply.body) as unknown[]).length} assets, ${headers}; ${statements.length} statements: ${statementHeads(statements)}`);
    const variants = statements.map((st) => (/\bme\./.test(st.text) ? withViewerAsParameters(st, viewer) : st));
    const variant = variants.every((v) => v !== null) ? (variants as Statement[]) : null;
    cases.push({ label, kind, missTarget, matches, http: () => ({ method, path, ...(body ? { body } : {}) }), ok: 200, sql: () => statements, captured: statements, variant });
  };

  console.log('captured statements per request:');
  await listing('first page', 'listing', 1000, list(''), total);
  await listing(`page ${middle.toLocaleString('en-US')} by cursor`, 'deep', null, list(`&cursor=${encodeURIComponent(middleCursor)}`), total);
  await listing(`page ${page.toLocaleString('en-US')} by cursor`, 'deep', null, list(`&cursor=${encodeURIComponent(cursor)}`), total);
  await listing(`metadata=instrument:${instrument}`, 'filtered', 500, list(`&metadata=${encodeURIComponent(`instrument:${instrument}`)}`), await count(pool, 'metadata @> $1::jsonb', [JSON.stringify({ instrument })]));
  await listing(`tags=${tags.join(',')}`, 'filtered', 500, list(`&tags=${encodeURIComponent(tags.join(','))}`), await count(pool, 'tags @> $1::text[]', [tags]));
  await listing(`record_type=${recordType}`, 'filtered', 500, list(`&record_type=${recordType}`), await count(pool, 'record_type = $1', [recordType]));
  await listing(`owner_id (the largest owner)`, 'filtered', 500, list(`&owner_id=${owner.id}`), owner.n);
  for (const collection of collectionsToList) {
    await listing(`collection_id (${collection.label})`, 'filtered', 500, list(`&collection_id=${collection.id}`), collection.n);
  }
  await listing(`title_prefix=${titlePrefix}`, 'filtered', 800, list(`&title_prefix=${encodeURIComponent(titlePrefix)}`), await count(pool, 'lower(title) like $1', [`${titlePrefix}%`]));
  await listing(`q=${q}`, 'filtered', 300, list(`&q=${encodeURIComponent(q)}`), await count(pool, 'lower(title) like $1 or lower(alias) like $1', [`%${q}%`]));
  await listing(
    'POST query/ tags contains and metadata.instrument eq (index-served)',
    'filtered',
    200,
    `/api/assets/query/?limit=${limit}`,
    await count(pool, 'tags @> $1::text[] and metadata @> $2::jsonb', [[tags[0] ?? ''], JSON.stringify({ instrument })]),
    'POST',
    JSON.stringify(indexQuery),
  );
  // Datasets with a size over N: over 500, commoner than datasets, the size is post-filtered;
  // over 980 it is rarer, and walks the path's numbers (asset_metadata_numbers).
  for (const [size, note] of [[500, ''], [980, ' (range walk)']] as const) {
    await listing(
      `POST query/ dataset and metadata.size > ${size}${note}`,
      'filtered',
      200,
      `/api/assets/query/?limit=${limit}`,
      await count(pool, `record_type = 'dataset' and jsonb_typeof(metadata->'size') = 'number' and (metadata->>'size')::numeric > $1`, [size]),
      'POST',
      JSON.stringify({ where: { and: [{ field: 'record_type', op: 'eq', value: 'dataset' }, { field: 'metadata.size', op: 'gt', value: size }] } }),
    );
  }

  const one = await captured('GET', `/api/assets/${ids[0]}/`);
  if (one.reply.status !== 200) throw new Error(`GET by id: ${one.reply.status}`);
  console.log(`  GET /api/assets/{id}/: ${one.statements.length} statements: ${statementHeads(one.statements)}`);
  cases.push({
    label: 'GET /api/assets/{id}/ (10,000 random ids)',
    kind: 'read',
    missTarget: 3000,
    matches: null,
    http: (i) => ({ method: 'GET', path: `/api/assets/${ids[i % ids.length]}/` }),
    ok: 200,
    sql: (i) => withValuesReplaced(one.statements, [[ids[0] ?? '', ids[i % ids.length] ?? '']]),
    captured: one.statements,
  });

  let created = 0;
  const createBody = () => {
    created += 1;
    return JSON.stringify({ title: `Bench created ${created}`, record_type: 'dataset', tags: ['bench', 'created'], metadata: { size: created % 1000, instrument: 'INST-001' } });
  };
  const made = await captured('POST', '/api/assets/', createBody());
  if (made.reply.status !== 201) throw new Error(`POST /api/assets/: ${made.reply.status} ${made.reply.body.slice(0, 200)}`);
  const madeId = (JSON.parse(made.reply.body) as { id: string }).id;
  const append = made.statements.find((s) => /cairn_append(_checked)?\(/.test(s.text));
  const eventIds = (append?.values[4] as string[] | undefined) ?? [];
  console.log(`  POST /api/assets/: ${made.statements.length} statements: ${statementHeads(made.statements)}`);
  cases.push({
    label: 'POST /api/assets/ (create)',
    kind: 'create',
    missTarget: 1000,
    matches: null,
    http: () => ({ method: 'POST', path: '/api/assets/', body: createBody() }),
    ok: 201,
    sql: () => {
      // New ids as the service makes them (time-ordered), so that the bare inserts touch the same index pages it would.
      const id = timeOrderedId();
      return createForNewAsset(made.statements, [[madeId, id], ...eventIds.map((e) => [e, timeOrderedId()] as const)], `asset-${madeId}`, `asset-${id}`);
    },
    captured: made.statements,
  });
  return cases;
}
