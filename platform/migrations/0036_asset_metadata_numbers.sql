-- Each asset's numbers in its metadata, one row per path (through objects only) whose value
-- is a number, in the listing's order (-created_at, id), the number included: a query's
-- range on a metadata path (`gt`, `gte`, `lt`, `lte` with a number) walks the path's rows
-- from the cursor and compares the number on index entries alone, fetching only the assets
-- in range (docs/asset-query.md "Ranges on metadata numbers"), instead of fetching every
-- asset another filter finds and dropping those out of range. A row holds a path's term,
-- 8 bytes of the MD5 of the path written as the terms of asset_metadata_order write it:
-- a collision only adds candidates that the page's own check of the asset drops (the key
-- holds the value, so two paths of one asset that collide both keep their rows). Kept by the
-- assets projection from `metadataNumbers` (projections/src/assets/metadata-leaves.ts);
-- this function is the same rule in SQL, for the assets that existed before (a test holds
-- the two equal). Paths of at most 4 keys of at most 64 characters; a number in a list is
-- not at its list's path, as `metadata #> path` does not reach it.
create function cairn_metadata_numbers(metadata jsonb) returns table (path bigint, value numeric)
language sql immutable parallel safe as $$
  with recursive walk(depth, path, v) as (
    select 1, char_length(e.key) || ':' || e.key, e.value
    from jsonb_each(case when jsonb_typeof(metadata) = 'object' then metadata else '{}'::jsonb end) e
    where char_length(e.key) <= 64
    union all
    select w.depth + 1, w.path || char_length(e.key) || ':' || e.key, e.value
    from walk w cross join lateral jsonb_each(w.v) e
    where jsonb_typeof(w.v) = 'object' and w.depth < 4 and char_length(e.key) <= 64
  )
  select ('x' || substr(md5(w.path), 1, 16))::bit(64)::bigint, (w.v #>> '{}')::numeric
  from walk w where jsonb_typeof(w.v) = 'number'
$$;

create table asset_metadata_numbers (
  path bigint not null,
  value numeric not null,
  created_at timestamptz not null,
  asset_id uuid not null,
  primary key (asset_id, path, value)
);
create index asset_metadata_numbers_walk on asset_metadata_numbers (path, created_at desc, asset_id) include (value);

insert into asset_metadata_numbers (path, value, created_at, asset_id)
select n.path, n.value, a.created_at, a.id from assets a cross join lateral cairn_metadata_numbers(a.metadata) n
on conflict do nothing;
analyze asset_metadata_numbers;
