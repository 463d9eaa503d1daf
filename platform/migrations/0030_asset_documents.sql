-- Each asset's JSON, kept ready: the fields every caller sees alike, as the text of a JSON
-- object without its closing brace. A listing page sends it as stored and adds only the
-- caller's own parts (collection_ids, is_starred, effective_flags, access_scope), worked
-- out in Node from the row's grants (projections/src/assets/asset-document.ts). Building
-- this JSON per row and per read cost about half of a page's time in PostgreSQL
-- (docs/benchmarks.md, "Documents kept ready").
--
-- The function is declared immutable, which it is in fact: every timestamp is written in
-- UTC with an explicit format, and no other value's text depends on a setting. It is
-- plpgsql so that the generated column calls it as a unit (`readers` does the same).
create or replace function cairn_asset_doc(
  id uuid, title text, alias text, description text, record_type text, tags text[], metadata jsonb,
  owner_type text, owner_id uuid, is_locked boolean, locked_by uuid, locked_at timestamptz,
  lock_reason text, is_migrating boolean, created_by uuid, created_at timestamptz, updated_at timestamptz)
returns text
language plpgsql immutable parallel safe as $$
begin
  return left(json_build_object(
    'id', id,
    'title', title,
    'alias', alias,
    'description', description,
    'record_type', record_type,
    'tags', tags,
    'metadata', metadata,
    'owner_type', owner_type,
    'owner_id', owner_id,
    'is_locked', is_locked,
    'locked_by', locked_by,
    'locked_at', to_char(locked_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'lock_reason', lock_reason,
    'is_migrating', is_migrating,
    'created_by', created_by,
    'created_at', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updated_at', to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, -1);
end
$$;

alter table assets add column doc text generated always as (cairn_asset_doc(
  id, title, alias, description, record_type, tags, metadata, owner_type, owner_id, is_locked, locked_by,
  locked_at, lock_reason, is_migrating, created_by, created_at, updated_at)) stored;
