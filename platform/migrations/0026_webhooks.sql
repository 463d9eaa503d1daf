-- Webhook subscriptions (docs/changes.md, "Webhooks"): the read model of their events.
create table webhooks (
  id uuid primary key,
  owner_id uuid not null,
  url text not null,
  -- The filters of GET /api/changes/: a collection's subtree, one asset, resource kinds.
  collection_id uuid,
  asset_id uuid,
  kinds text[] not null default '{}',
  -- The secret, sealed with the server's webhook key: the log and the audit never hold it in clear.
  sealed_secret text not null,
  -- Changes after this log position (encoded) are delivered: the head when it was created.
  start_after text not null,
  status text not null check (status in ('active', 'paused')),
  paused_reason text,
  paused_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index webhooks_owner on webhooks (owner_id, created_at, id);

-- What the deliverer has done, kept apart from the read model: a rebuild of `webhooks`
-- never moves a subscription back, so nothing delivered is delivered again.
create table webhook_progress (
  webhook_id uuid primary key,
  -- The encoded position of the last change delivered (or passed over as not visible).
  last_position text not null,
  consecutive_failures integer not null default 0,
  -- Each scheduled delivery job has its own id (`webhook-deliver.<id>.<runs>`).
  runs bigint not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_error text,
  updated_at timestamptz not null default now()
);

-- The delivery log the owner reads and replays from.
create table webhook_deliveries (
  id uuid primary key,
  webhook_id uuid not null,
  -- The change's log position (encoded); a replay repeats the change it names.
  position text not null,
  change_kind text not null,
  body text not null,
  attempt integer not null,
  replay_of uuid,
  outcome text not null check (outcome in ('delivered', 'failed')),
  status_code integer,
  error text,
  duration_ms integer not null,
  attempted_at timestamptz not null
);
create index webhook_deliveries_by_webhook on webhook_deliveries (webhook_id, attempted_at desc, id desc);
