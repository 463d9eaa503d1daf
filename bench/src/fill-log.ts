import { currentVersionOf, eventCatalog } from '@cairn/domain';
import type pg from 'pg';

/** Whether the `streams` table is still there (stream versions may come to derive from `events`). */
export async function hasStreamsTable(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query<{ present: boolean }>("select to_regclass('public.streams') is not null as present");
  return rows[0]?.present ?? false;
}

const chunkSql = (withStreams: boolean) => `
  with ins as (
    insert into events (event_id, stream_id, stream_version, type, schema_version, data, metadata)
    select gen_random_uuid(), 'funding_agency-' || s.id, 1, 'FundingAgencyCreated', $3::int,
      jsonb_build_object('id', s.id, 'name', 'Agency ' || s.n, 'abbreviation', 'A' || s.n, 'url', 'https://example.org', 'catalogId', ''),
      jsonb_build_object('actorId', null, 'requestId', null, 'correlationId', gen_random_uuid(), 'causationId', null,
        'occurredAt', to_char(clock_timestamp() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
    from (select gen_random_uuid() as id, n from generate_series($1::int, $2::int) as n) as s
    order by s.n
    returning stream_id
  )
  ${withStreams ? 'insert into streams (stream_id, version) select stream_id, 1 from ins' : 'select count(*) from ins'}`;

/**
 * Appends `count` valid `FundingAgencyCreated` events, one new stream each, with set-based
 * inserts of `chunk` rows (each its own transaction, so the log spans many transaction ids).
 */
export async function fillLog(pool: pg.Pool, count: number, chunk = 50_000): Promise<{ seconds: number }> {
  const started = performance.now();
  const sql = chunkSql(await hasStreamsTable(pool));
  const version = currentVersionOf(eventCatalog, 'FundingAgencyCreated');
  for (let from = 1; from <= count; from += chunk) {
    await pool.query(sql, [from, Math.min(count, from + chunk - 1), version]);
  }
  await pool.query('analyze events');
  // Write the filled pages out now, so a checkpoint does not land in the middle of what is measured next.
  await pool.query('checkpoint').catch(() => undefined);
  return { seconds: (performance.now() - started) / 1000 };
}
