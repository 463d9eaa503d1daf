-- Each asset's metadata values in the listing's order (-created_at, id), one row per path
-- and scalar value but null (a value in a list counts at the list's path, as containment
-- matches it): a `metadata=key:value` filter, or the query's `eq`, walks its own rows from
-- the cursor instead of gathering every match through the GIN index and sorting them
-- (docs/assets.md "The listing"). A row holds a term, 8 bytes of the MD5 of the path and
-- value written as text: a collision only adds a candidate that the page's own check of
-- the asset drops. Kept by the assets projection, whose terms come from `metadataTerms`
-- (projections/src/assets/metadata-leaves.ts); this function is the same rule in SQL, for
-- the assets that existed before (a test holds the two equal). Paths of at most 4 keys of
-- at most 64 characters, strings of at most 64, numbers JavaScript writes without an
-- exponent: other filters read by windows.
create function cairn_metadata_terms(metadata jsonb) returns setof bigint
language sql immutable parallel safe as $$
  with recursive walk(depth, path, v) as (
    select 1, char_length(e.key) || ':' || e.key, e.value
    from jsonb_each(case when jsonb_typeof(metadata) = 'object' then metadata else '{}'::jsonb end) e
    where char_length(e.key) <= 64
    union all
    select w.depth + 1, w.path || char_length(e.key) || ':' || e.key, e.value
    from walk w cross join lateral jsonb_each(w.v) e
    where jsonb_typeof(w.v) = 'object' and w.depth < 4 and char_length(e.key) <= 64
  ), leaves as (
    select w.path, w.v from walk w where jsonb_typeof(w.v) in ('string', 'number', 'boolean')
    union all
    select w.path, el from walk w cross join lateral jsonb_array_elements(w.v) el
    where jsonb_typeof(w.v) = 'array' and jsonb_typeof(el) in ('string', 'number', 'boolean')
  ), written as (
    select l.path || '=' || case jsonb_typeof(l.v) when 'string' then 's' when 'boolean' then 'b' else 'n' end || (l.v #>> '{}') as text
    from leaves l
    where case jsonb_typeof(l.v)
      when 'string' then char_length(l.v #>> '{}') <= 64
      when 'number' then abs((l.v #>> '{}')::numeric) < 1e21 and ((l.v #>> '{}')::numeric = 0 or abs((l.v #>> '{}')::numeric) >= 0.000001)
      else true end
  )
  select distinct ('x' || substr(md5(w.text), 1, 16))::bit(64)::bigint from written w
$$;

create table asset_metadata_order (
  term bigint not null,
  created_at timestamptz not null,
  asset_id uuid not null,
  primary key (asset_id, term)
);
create index asset_metadata_order_walk on asset_metadata_order (term, created_at desc, asset_id);

insert into asset_metadata_order (term, created_at, asset_id)
select t, a.created_at, a.id from assets a cross join lateral cairn_metadata_terms(a.metadata) t;
