create extension if not exists pg_trgm;

create table funding_agencies (
  id uuid primary key,
  name text not null,
  abbreviation text not null,
  url text not null,
  catalog_id text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- The list is ordered by name; `q` is a case-insensitive substring of name or abbreviation.
create index funding_agencies_name_order on funding_agencies (lower(name), id);
create index funding_agencies_search on funding_agencies using gin ((lower(name) || ' ' || lower(abbreviation)) gin_trgm_ops);
