-- The assets of each collection in every order its listing offers (interface 4.4), one row
-- per (collection, asset) with the asset's sort keys beside it: a page of
-- GET /api/collections/{id}/assets/ is then a walk of one index from the cursor on, however
-- large the collection. Part of the `assets` projection (docs/collections.md).
create table collection_assets (
  collection_id uuid not null,
  asset_id uuid not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  title text not null,
  -- The creating user, or the zero uuid when none is known (the listing's `creator` order).
  creator uuid not null,
  primary key (collection_id, asset_id)
);

create index collection_assets_asset on collection_assets (asset_id);
-- Each serves its order both ways: descending orders walk it backwards, ties by id reversed too.
create index collection_assets_created on collection_assets (collection_id, created_at, asset_id);
create index collection_assets_updated on collection_assets (collection_id, updated_at, asset_id);
create index collection_assets_title on collection_assets (collection_id, title, asset_id);
create index collection_assets_creator on collection_assets (collection_id, creator, asset_id);

insert into collection_assets (collection_id, asset_id, created_at, updated_at, title, creator)
select held.collection_id, a.id, a.created_at, a.updated_at, a.title, coalesce(a.created_by, '00000000-0000-0000-0000-000000000000')
from assets a cross join lateral unnest(a.collection_ids) as held(collection_id)
on conflict do nothing;
