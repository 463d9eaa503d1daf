-- Storage repositories, allocations, content records, migrations and the job outbox
-- (issue 12; docs/storage.md, docs/jobs.md).

create table repositories (
  id uuid primary key,
  name text not null unique,
  kind text not null check (kind in ('fs', 's3')),
  -- Where it is (a path, or endpoint, bucket, prefix, region); never credentials.
  config jsonb not null,
  created_at timestamptz not null
);

create table allocations (
  id uuid primary key,
  owner_type text not null check (owner_type in ('user', 'project', 'organization')),
  owner_id uuid not null,
  repository_id uuid not null,
  limit_bytes bigint not null,
  used_bytes bigint not null default 0,
  content_count integer not null default 0,
  is_default boolean not null default false,
  -- The allocation stream's version: a charge decided on this row appends with it as the
  -- expected version, so a row that is not current loses the race and is read again.
  version integer not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index allocations_owner on allocations (owner_type, owner_id, created_at, id);
create index allocations_repository on allocations (repository_id, created_at, id);

create table asset_contents (
  id uuid primary key,
  asset_id uuid not null,
  repository_id uuid not null,
  allocation_id uuid not null,
  key text not null,
  filename text not null,
  size bigint not null,
  sha256 text not null,
  content_type text not null,
  origin text not null,
  metadata jsonb,
  metadata_status text not null,
  metadata_error text,
  metadata_extracted_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index asset_contents_asset on asset_contents (asset_id, created_at, id);
-- "Once nothing references them, the bytes" go: who else points at this object.
create index asset_contents_object on asset_contents (repository_id, key);
create index asset_contents_allocation on asset_contents (allocation_id);

create table asset_migrations (
  id uuid primary key,
  asset_id uuid not null,
  source_repository_id uuid,
  target_repository_id uuid not null,
  status text not null,
  attempts integer not null default 0,
  error text,
  moved_content integer,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index asset_migrations_asset on asset_migrations (asset_id, created_at, id);

-- Jobs recorded with the events that call for them (the append's own transaction) and
-- relayed after commit: to BullMQ, or run here when there is no Redis (docs/jobs.md).
create table job_outbox (
  id text primary key,
  name text not null,
  payload jsonb not null,
  -- The content or migration the job is for: completion events remove its jobs.
  subject_id uuid not null,
  created_at timestamptz not null,
  relayed_at timestamptz,
  attempts integer not null default 0,
  run_after timestamptz not null default now(),
  lease_until timestamptz,
  last_error text
);
create index job_outbox_due on job_outbox (run_after, id) where relayed_at is null;
create index job_outbox_subject on job_outbox (subject_id);
