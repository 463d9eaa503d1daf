-- Projects (interface 2.2 and 4.5), their members and stars: the `projects` projection.
create extension if not exists pg_trgm;

create table projects (
  id uuid primary key,
  organization_id uuid not null,
  owner_id uuid not null,
  name text not null,
  description text not null,
  root_collection_id uuid not null,
  -- Kept exactly by the projection, in the transaction that changes project_members.
  member_count integer not null default 0 check (member_count >= 0),
  geobound_enabled boolean not null,
  geobound_basis text not null check (geobound_basis in ('ip', 'affiliation', 'ip_or_affiliation', 'ip_and_affiliation')),
  geobound_allowed_countries text[] not null,
  geobound_allowed_country_set uuid,
  geobound_denied_country_set uuid,
  geobound_block_vpn boolean not null,
  geobound_fail_closed boolean not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- The list is ordered by lower(name), id: for a system administrator over every project,
-- for others over their projects and those of the organizations they administer.
create index projects_name_order on projects (lower(name), id);
create index projects_organization on projects (organization_id, lower(name), id);
-- `q`: a case-insensitive substring of the name.
create index projects_name_search on projects using gin (lower(name) gin_trgm_ops);
-- Deleting a country set checks that no project references it.
create index projects_allowed_country_set on projects (geobound_allowed_country_set) where geobound_allowed_country_set is not null;
create index projects_denied_country_set on projects (geobound_denied_country_set) where geobound_denied_country_set is not null;

create table project_members (
  project_id uuid not null,
  user_id uuid not null,
  role text not null check (role in ('admin', 'member', 'viewer')),
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (project_id, user_id)
);
-- A caller's projects.
create index project_members_user on project_members (user_id, project_id);

create table project_stars (
  user_id uuid not null,
  project_id uuid not null,
  created_at timestamptz not null,
  primary key (user_id, project_id)
);
create index project_stars_project on project_stars (project_id);

-- Named country sets of organizations, referenced by projects' restrictions: the
-- `country-sets` projection.
create table country_sets (
  id uuid primary key,
  organization_id uuid not null,
  name text not null,
  kind text not null check (kind in ('allowed', 'denied')),
  countries text[] not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index country_sets_name_order on country_sets (lower(name), id);
create index country_sets_organization on country_sets (organization_id, lower(name), id);

-- Collections (interface 2.3): for now only the root collection of each project; the
-- collections issue extends the table and its indexes. The `collections` projection.
create table collections (
  id uuid primary key,
  title text not null,
  description text not null default '',
  alias text not null default '',
  tags text[] not null default '{}',
  type text[] not null default '{}',
  license text not null default '',
  parent_id uuid,
  -- Ancestors from the root down, for tree queries without recursion.
  parent_ids uuid[] not null default '{}',
  owner_type text not null check (owner_type in ('project', 'user')),
  owner_user_id uuid,
  owner_project_id uuid,
  is_root boolean not null default false,
  preferred_repository_id uuid,
  provenance_token text,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index collections_parent on collections (parent_id) where parent_id is not null;
create index collections_owner_project on collections (owner_project_id) where owner_project_id is not null;
create index collections_owner_user on collections (owner_user_id) where owner_user_id is not null;
