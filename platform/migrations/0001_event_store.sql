-- The event log. `transaction_id` is the id of the writing transaction: readers only
-- take events of transactions older than the oldest one still running
-- (pg_snapshot_xmin), ordered by (transaction_id, position), so a position allocated
-- early but committed late is never skipped.
create table events (
  position bigint generated always as identity primary key,
  transaction_id xid8 not null default pg_current_xact_id(),
  event_id uuid not null,
  stream_id text not null,
  stream_version bigint not null,
  type text not null,
  schema_version integer not null,
  data jsonb not null,
  metadata jsonb not null,
  recorded_at timestamptz not null default clock_timestamp(),
  constraint events_event_id_key unique (event_id),
  constraint events_stream_version_key unique (stream_id, stream_version)
);
create index events_global_order on events (transaction_id, position);
create index events_type on events (type);

-- One row per stream: its version is what optimistic concurrency compares against.
create table streams (
  stream_id text primary key,
  version bigint not null
);

-- Checkpoints move in the same transaction as the read-model rows they cover.
create table projection_checkpoints (
  name text primary key,
  version integer not null,
  major numeric(20, 0) not null default 0,
  minor numeric(20, 0) not null default 0,
  status text not null default 'running' check (status in ('running', 'failed', 'rebuilding')),
  error text,
  failed_event_id uuid,
  events_applied bigint not null default 0,
  updated_at timestamptz not null default now()
);
