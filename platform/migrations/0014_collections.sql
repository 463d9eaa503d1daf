-- Collections (interface 2.3, 4.4): the tree, permissions that flow down it, and what they
-- give the assets the collections hold. The `collections` projection; docs/collections.md.

-- Two grant maps as one (principal -> flags OR-ed).
create function cairn_grants_union(a jsonb, b jsonb)
returns jsonb
language sql immutable parallel safe as $$
  select coalesce(jsonb_object_agg(principal, flags), '{}') from cairn_grant_flags(a, b)
$$;

alter table collections
  add column owner_grants jsonb not null default '{}',
  -- The collection's own permission entries, and those of its ancestors (what flows down).
  add column entry_grants jsonb not null default '{}',
  add column inherited_grants jsonb not null default '{}',
  add column revision integer not null default 1,
  -- Who may see the collection: its owner's grants and every entry that reaches it.
  add column readers text[] generated always as (cairn_readers(owner_grants, cairn_grants_union(entry_grants, inherited_grants))) stored,
  -- Who may read the assets it holds through it (entries only: DECISIONS.md 2).
  add column asset_readers text[] generated always as (cairn_readers(entry_grants, inherited_grants)) stored;

create index collections_readers on collections using gin (readers);
create index collections_asset_readers on collections using gin (asset_readers);
create index collections_ancestors on collections using gin (parent_ids);
create index collections_order on collections (created_at desc, id);
create index collections_title_search on collections using gin (lower(title) gin_trgm_ops);
create index collections_alias_search on collections using gin (lower(alias) gin_trgm_ops);

create table collection_permissions (
  collection_id uuid not null,
  subject_type text not null check (subject_type in ('user', 'group', 'organization', 'project', 'public')),
  subject_key text not null,
  flags integer not null check (flags > 0),
  primary key (collection_id, subject_type, subject_key)
);

-- The caller's flags from the collections holding an asset (their entries and their ancestors').
create function cairn_collection_flags(collection_ids uuid[], principals text[])
returns integer
language sql stable parallel safe as $$
  select coalesce(bit_or(g.flags), 0)
  from collections c, cairn_grant_flags(c.entry_grants, c.inherited_grants) g
  where c.id = any(collection_ids) and g.principal = any(principals)
$$;
