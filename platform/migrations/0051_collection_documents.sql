-- Each collection's JSON, kept ready: the fields every caller sees alike, as the text of a
-- JSON object without its closing brace. A listing page sends it as stored and adds the
-- caller's own parts (parent_id and parent_ids as far as the caller may see them,
-- effective_flags, access_scope) and the owners' names, which live in other tables
-- (projections/src/collections/collection-document.ts). Reading fifteen columns a row and
-- building each object in Node was most of the service's time on a page of the listing
-- (docs/benchmarks.md, eighteenth sitting). Immutable in fact, as cairn_asset_doc is
-- (migration 0030): timestamps in UTC with an explicit format.
create or replace function cairn_collection_doc(
  id uuid, title text, description text, alias text, tags text[], type text[], license text,
  owner_type text, owner_user_id uuid, owner_project_id uuid, is_root boolean,
  preferred_repository_id uuid, provenance_token text, created_at timestamptz, updated_at timestamptz)
returns text
language plpgsql immutable parallel safe as $$
begin
  return left(json_build_object(
    'id', id,
    'title', title,
    'description', description,
    'alias', alias,
    'tags', tags,
    'type', type,
    'license', license,
    'owner_type', owner_type,
    'owner_user_id', owner_user_id,
    'owner_project_id', owner_project_id,
    'is_root', is_root,
    'preferred_repository_id', preferred_repository_id,
    'provenance_token', coalesce(provenance_token, ''),
    'created_at', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updated_at', to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, -1);
end
$$;

alter table collections add column doc text generated always as (cairn_collection_doc(
  id, title, description, alias, tags, type, license, owner_type, owner_user_id, owner_project_id, is_root,
  preferred_repository_id, provenance_token, created_at, updated_at)) stored;
