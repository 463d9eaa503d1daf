-- The append without the inline read models' statements: the service now sends those after
-- it, in the same round trip and transaction, as prepared statements whose plans PostgreSQL
-- keeps (cairn_append ran them with EXECUTE, which parses and plans every time: about a
-- fifth of a create's database time). So that nothing after it runs on a version conflict,
-- a conflict is an error (SQLSTATE CA409) that rolls the whole round trip back, rather than
-- an empty result. cairn_append stays for services of the previous release.
create or replace function cairn_append_checked(
  p_stream text,
  p_lock_a int[],
  p_lock_b int[],
  p_lock_shared boolean[],
  p_ids uuid[],
  p_types text[],
  p_schema_versions int[],
  p_data jsonb[],
  p_metadata jsonb[],
  p_expected bigint
) returns table (o_position bigint, o_xid text, o_stream_version bigint, o_recorded_at timestamptz)
language plpgsql as $$
declare
  head bigint;
  i int;
begin
  -- The locks come before the first write, so before the transaction has an id.
  for i in 1 .. coalesce(array_length(p_lock_a, 1), 0) loop
    if p_lock_shared[i] then
      perform pg_advisory_xact_lock_shared(p_lock_a[i], p_lock_b[i]);
    else
      perform pg_advisory_xact_lock(p_lock_a[i], p_lock_b[i]);
    end if;
  end loop;
  -- A new snapshot for this statement: it sees the previous holder's commit.
  select coalesce(max(ev.stream_version), 0) into head from events ev where ev.stream_id = p_stream;
  if p_expected is not null and head <> p_expected then
    raise exception 'stream % is at version %, not %', p_stream, head, p_expected using errcode = 'CA409';
  end if;
  return query
    insert into events as ev (event_id, stream_id, stream_version, type, schema_version, data, metadata)
    select u.id, p_stream, head + u.ord, u.type, u.schema_version, u.data, u.metadata
    from unnest(p_ids, p_types, p_schema_versions, p_data, p_metadata) with ordinality as u(id, type, schema_version, data, metadata, ord)
    order by u.ord
    returning ev.position, ev.transaction_id::text, ev.stream_version, ev.recorded_at;
end
$$;
