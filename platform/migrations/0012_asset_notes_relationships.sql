-- Notes and the markdown note of assets (the `asset-notes` projection) and relationships
-- between assets (the `asset-relationships` projection). docs/asset-notes.md.

create table asset_notes (
  id uuid primary key,
  asset_id uuid not null,
  author_id uuid not null,
  content text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- Newest first, per asset.
create index asset_notes_order on asset_notes (asset_id, created_at desc, id);

create table asset_markdown_notes (
  asset_id uuid primary key,
  author_id uuid not null,
  content text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);

create table asset_relationships (
  id uuid primary key,
  from_asset_id uuid not null,
  to_asset_id uuid not null,
  relationship_type text not null,
  created_by uuid,
  created_at timestamptz not null
);
create index asset_relationships_from on asset_relationships (from_asset_id, created_at, id);
create index asset_relationships_to on asset_relationships (to_asset_id, created_at, id);
