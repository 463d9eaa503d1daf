-- Sessions of the signed-in web application. The cookie holds a random secret; only its
-- SHA-256 digest is stored, so a database read does not yield usable cookies.
create table web_sessions (
  id_digest text primary key,
  user_id uuid not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  user_agent text
);
create index web_sessions_user on web_sessions (user_id);
create index web_sessions_expires on web_sessions (expires_at);

-- What every process must forget at once: revoked tokens and grants, ended sessions.
-- Processes follow it (NOTIFY cairn_auth, and a poll) to evict their caches.
create table auth_invalidations (
  id bigint generated always as identity primary key,
  kind text not null check (kind in ('token', 'grant', 'session', 'user')),
  key text not null,
  created_at timestamptz not null default now()
);

-- Fixed-window counters for rate limits (sign-in failures, user-code entry).
create table rate_limit_counters (
  key text primary key,
  window_started_at timestamptz not null,
  count integer not null,
  locked_until timestamptz
);

-- RFC 8628 polling: when each device code was last polled and the interval it must keep.
create table device_code_polls (
  device_code_digest text primary key,
  last_polled_at timestamptz not null,
  interval_seconds integer not null,
  expires_at timestamptz not null
);

-- Sign-ins delegated to an upstream OpenID Connect provider, between the redirect out and
-- the browser's return: PKCE verifier, nonce, and then the user it resolved to.
create table upstream_sign_ins (
  state text primary key,
  interaction_uid text not null,
  code_verifier text not null,
  nonce text not null,
  user_id uuid,
  expires_at timestamptz not null
);
