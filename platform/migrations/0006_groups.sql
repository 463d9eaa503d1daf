-- Groups of organizations (interface 2.4 and 4.6), kept by the `groups` projection.
-- Each organization has one `members` group (id: UUID v5 of the organization id, see
-- docs/groups.md) whose members are the organization's members; `custom` groups have
-- streams of their own.
create extension if not exists pg_trgm;

create table groups (
  id uuid primary key,
  organization_id uuid not null,
  name text not null,
  description text not null,
  type text not null check (type in ('members', 'custom')),
  -- Kept exactly by the projection, in the transaction that changes group_members.
  member_count integer not null default 0 check (member_count >= 0),
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- The list is ordered by lower(name), id: for a system administrator over every group,
-- for others within the organizations they belong to.
create index groups_name_order on groups (lower(name), id);
create index groups_organization on groups (organization_id, lower(name), id);
-- `q`: a case-insensitive substring of the name.
create index groups_name_search on groups using gin (lower(name) gin_trgm_ops);

create table group_members (
  group_id uuid not null,
  user_id uuid not null,
  -- Denormalized so that leaving an organization clears the user's rows in its groups
  -- with one indexed statement.
  organization_id uuid not null,
  -- The organization membership the row belongs to: the id of the OrganizationMemberAdded
  -- event that made the user a member.
  membership_id text not null,
  added_at timestamptz not null,
  primary key (group_id, user_id)
);
-- `user`: the groups a user is a member of.
create index group_members_user on group_members (user_id, group_id);
create index group_members_organization_user on group_members (organization_id, user_id);
