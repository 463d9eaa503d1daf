-- Idempotency-Key (docs/idempotency.md): the first answer to each caller's key, kept for
-- at least 24 hours, and an index to find the events a keyed request stored.
create table idempotency_keys (
  owner uuid not null,
  key text not null,
  fingerprint text not null,
  started_at timestamptz not null default now(),
  finished_at timestamptz,
  status integer,
  headers jsonb,
  body text,
  primary key (owner, key)
);
create index idempotency_keys_started on idempotency_keys (started_at);

create index events_idempotency_key on events ((metadata ->> 'idempotencyKey')) where metadata ? 'idempotencyKey';
