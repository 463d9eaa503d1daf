create table users (
  id uuid primary key,
  email text not null,
  name text not null,
  is_active boolean not null default true,
  is_system_admin boolean not null default false,
  created_at timestamptz not null,
  last_login timestamptz
);
create unique index users_email_key on users (email);

create table organizations (
  id uuid primary key,
  name text not null,
  country text,
  created_at timestamptz not null
);

create table organization_memberships (
  organization_id uuid not null,
  user_id uuid not null,
  role text not null,
  created_at timestamptz not null,
  primary key (organization_id, user_id)
);
create index organization_memberships_user on organization_memberships (user_id);

-- Secrets never go into the event log: a password hash lives here only.
create table user_credentials (
  user_id uuid primary key,
  password_hash text not null,
  updated_at timestamptz not null default now()
);

-- The storage of the OAuth 2.0 server (oidc-provider adapter).
create table oidc_payloads (
  model text not null,
  id text not null,
  payload jsonb not null,
  grant_id text,
  user_code text,
  uid text,
  expires_at timestamptz,
  consumed_at timestamptz,
  primary key (model, id)
);
create index oidc_payloads_grant on oidc_payloads (grant_id) where grant_id is not null;
create index oidc_payloads_user_code on oidc_payloads (user_code) where user_code is not null;
create index oidc_payloads_uid on oidc_payloads (uid) where uid is not null;
create index oidc_payloads_expires on oidc_payloads (expires_at) where expires_at is not null;

-- Signing keys and cookie secrets, made once at first start and shared by every process.
create table server_secrets (
  name text primary key,
  value jsonb not null,
  created_at timestamptz not null default now()
);
