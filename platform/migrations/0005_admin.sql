create extension if not exists pg_trgm;

-- The admin user list (interface 4.1) is ordered by name (case-insensitive), then id, and
-- hides deactivated users unless asked.
create index users_name_order on users (lower(name), id);
create index users_active_name_order on users (lower(name), id) where is_active;
-- `q`: a case-insensitive substring of the name or the e-mail address (stored lower-cased).
create index users_name_search on users using gin (lower(name) gin_trgm_ops);
create index users_email_search on users using gin (email gin_trgm_ops);

-- Organization lists are ordered by name, then id; member counts go through the primary
-- key of organization_memberships (organization_id first), a caller's organizations
-- through organization_memberships_user.
create index organizations_name_order on organizations (lower(name), id);
