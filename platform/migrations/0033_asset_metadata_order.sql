-- Each asset's metadata values in the listing's order (-created_at, id), one row per path
-- and scalar value but null (a value in a list counts at the list's path, as containment matches
-- it): a `metadata=key:value` filter, or the query's `eq`, walks its own rows from the
-- cursor instead of gathering every match through the GIN index and sorting them
-- (docs/assets.md "The listing"). Kept by the assets projection, whose rows come from
-- `metadataLeaves` (projections/src/assets/metadata-leaves.ts); this function is the
-- same rule in SQL, for the rows of assets that existed before (a test holds the two
-- equal). Paths of at most 4 keys of at most 64 characters, strings of at most 64: longer
-- ones would make index entries too large, and their filters read by windows.
create function cairn_metadata_leaves(metadata jsonb) returns table (path text[], value jsonb)
language sql immutable parallel safe as $$
  with recursive walk(path, v) as (
    select array[e.key], e.value
    from jsonb_each(case when jsonb_typeof(metadata) = 'object' then metadata else '{}'::jsonb end) e
    where char_length(e.key) <= 64
    union all
    select w.path || e.key, e.value
    from walk w cross join lateral jsonb_each(w.v) e
    where jsonb_typeof(w.v) = 'object' and cardinality(w.path) < 4 and char_length(e.key) <= 64
  ), leaves as (
    select w.path, w.v as value from walk w where jsonb_typeof(w.v) in ('string', 'number', 'boolean')
    union all
    select w.path, el from walk w cross join lateral jsonb_array_elements(w.v) el
    where jsonb_typeof(w.v) = 'array' and jsonb_typeof(el) in ('string', 'number', 'boolean')
  )
  select distinct l.path, l.value from leaves l
  where jsonb_typeof(l.value) <> 'string' or char_length(l.value #>> '{}') <= 64
$$;

create table asset_metadata_order (
  path text[] not null,
  value jsonb not null,
  created_at timestamptz not null,
  asset_id uuid not null,
  primary key (asset_id, path, value)
);
create index asset_metadata_order_walk on asset_metadata_order (path, value, created_at desc, asset_id);

insert into asset_metadata_order (path, value, created_at, asset_id)
select l.path, l.value, a.created_at, a.id from assets a cross join lateral cairn_metadata_leaves(a.metadata) l;
