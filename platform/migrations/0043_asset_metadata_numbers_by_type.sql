-- A query's range on a metadata number beside a record type (`record_type eq dataset` and
-- `metadata.size > 900`) walked every number of the path in the listing's order and
-- checked the type on each entry (migration 0038): for a type one asset in twenty has and a
-- range of one number in fifty, a page of 100 read about 100,000 entries (10 ms). Keyed by
-- the type after the path, the walk reads only that type's numbers: twenty times fewer
-- (docs/asset-query.md, "Ranges on metadata numbers"). The walk of a range alone keeps
-- asset_metadata_numbers_walk.
create index asset_metadata_numbers_typed_walk on asset_metadata_numbers (path, record_type, created_at desc, asset_id) include (value);
