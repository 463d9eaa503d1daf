-- Assets (interface 4.3): the `assets` projection. docs/assets.md explains the design.
--
-- Who may do what on an asset is materialized on its row as principal keys (see
-- domain/src/assets/access.ts): `u:<user>`, `g:<group>`, `o:<organization>` (any member),
-- `oa:<organization>` (its admins), `p:<project>` (any member), `pa:`/`pm:`/`pv:<project>`
-- (its admins, members, viewers) and `*` (everyone). `owner_grants` holds what ownership
-- gives, `entry_grants` what the permission entries give, each principal -> flags.
-- A caller's own principals are few and known at request time, so visibility is one
-- array overlap on an indexed column, and membership changes never touch asset rows.

-- Every principal of the grants with its flags OR-ed together.
create function cairn_grant_flags(owner_grants jsonb, entry_grants jsonb)
returns table (principal text, flags integer)
language sql immutable parallel safe as $$
  select g.key, bit_or(g.value::integer)
  from (select * from jsonb_each_text(owner_grants) union all select * from jsonb_each_text(entry_grants)) g
  group by g.key
$$;

-- The principals that may see the asset (READ_METADATA, bit 1), sorted.
create function cairn_readers(owner_grants jsonb, entry_grants jsonb)
returns text[]
language sql immutable parallel safe as $$
  select coalesce(array_agg(principal order by principal), '{}') from cairn_grant_flags(owner_grants, entry_grants) where flags & 1 = 1
$$;

-- A caller's effective flags (DECISIONS.md 2): the OR over the principals the caller has.
create function cairn_effective_flags(owner_grants jsonb, entry_grants jsonb, principals text[], is_admin boolean)
returns integer
language sql immutable parallel safe as $$
  select case when is_admin then 511
    else coalesce((select bit_or(flags) from cairn_grant_flags(owner_grants, entry_grants) where principal = any(principals)), 0) end
$$;

-- Why the caller sees the asset, the most direct reason first (docs/assets.md).
create function cairn_access_scope(readers text[], principals text[], is_admin boolean)
returns text
language sql immutable parallel safe as $$
  select coalesce(
    (select case min(case when r like 'u:%' then 1 when r like 'p%:%' then 2 when r like 'g:%' then 3 when r like 'o%:%' then 4 else 5 end)
              when 1 then 'direct' when 2 then 'project' when 3 then 'group' when 4 then 'organization' when 5 then 'public' end
     from unnest(readers) r where r = any(principals)),
    case when is_admin then 'admin' end)
$$;

-- A user's principals, read from the identity, groups and projects read models.
create function cairn_principals(user_id uuid)
returns text[]
language sql stable parallel safe as $$
  select array['*', 'u:' || user_id::text]
    || array(select 'g:' || gm.group_id::text from group_members gm where gm.user_id = cairn_principals.user_id)
    || array(select 'o:' || om.organization_id::text from organization_memberships om where om.user_id = cairn_principals.user_id)
    || array(select 'oa:' || om.organization_id::text from organization_memberships om where om.user_id = cairn_principals.user_id and om.role = 'admin')
    || array(select 'p:' || pm.project_id::text from project_members pm where pm.user_id = cairn_principals.user_id)
    || array(select (case pm.role when 'admin' then 'pa:' when 'member' then 'pm:' else 'pv:' end) || pm.project_id::text
             from project_members pm where pm.user_id = cairn_principals.user_id)
$$;

create table assets (
  id uuid primary key,
  title text not null,
  alias text not null,
  description text not null,
  record_type text not null,
  tags text[] not null,
  metadata jsonb not null,
  owner_type text not null check (owner_type in ('user', 'project', 'organization')),
  owner_id uuid not null,
  -- The collections holding the asset (the collections issue widens what they give).
  collection_ids uuid[] not null default '{}',
  is_locked boolean not null default false,
  locked_by uuid,
  locked_at timestamptz,
  lock_reason text not null default '',
  is_migrating boolean not null default false,
  owner_grants jsonb not null,
  entry_grants jsonb not null default '{}',
  readers text[] generated always as (cairn_readers(owner_grants, entry_grants)) stored,
  created_by uuid,
  created_at timestamptz not null,
  updated_at timestamptz not null
);

-- The listing's order (-created_at, id), and its keyset. Every filter below either walks
-- this order or is a bitmap the planner sorts; `EXPLAIN` tests check the choice.
create index assets_order on assets (created_at desc, id);
create index assets_readers on assets using gin (readers);
create index assets_metadata on assets using gin (metadata);
create index assets_tags on assets using gin (tags);
create index assets_collections on assets using gin (collection_ids);
create index assets_title on assets (title);
create index assets_title_prefix on assets (lower(title) text_pattern_ops);
create index assets_title_search on assets using gin (lower(title) gin_trgm_ops);
create index assets_alias_search on assets using gin (lower(alias) gin_trgm_ops);
create index assets_record_type on assets (record_type, created_at desc, id);
create index assets_owner on assets (owner_id, created_at desc, id);
create index assets_locked on assets (created_at desc, id) where is_locked;

-- The permission entries as clients wrote them (interface 2.5); `subject_key` is the
-- subject's id, or `public`.
create table asset_permissions (
  asset_id uuid not null,
  subject_type text not null check (subject_type in ('user', 'group', 'organization', 'project', 'public')),
  subject_key text not null,
  flags integer not null check (flags > 0),
  primary key (asset_id, subject_type, subject_key)
);

-- Stars per caller; the asset's creation time is copied so that "starred first" walks
-- the caller's stars in the listing's order.
create table asset_stars (
  user_id uuid not null,
  asset_id uuid not null,
  asset_created_at timestamptz not null,
  starred_at timestamptz not null,
  primary key (user_id, asset_id)
);
create index asset_stars_order on asset_stars (user_id, asset_created_at desc, asset_id);
create index asset_stars_asset on asset_stars (asset_id);

-- Listings leave out the assets of projects whose geographic restriction denies the request.
create index projects_restricted on projects (id) where geobound_enabled;

-- The asset query compares date-times inside metadata: text that is no date-time is null, never an error.
create function cairn_try_timestamptz(value text)
returns timestamptz
language plpgsql immutable parallel safe as $$
begin
  if value !~ '^\d{4}-\d{2}-\d{2}' then return null; end if;
  return value::timestamptz;
exception when others then
  return null;
end
$$;
