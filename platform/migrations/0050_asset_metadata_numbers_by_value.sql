-- A query's rare range on a metadata number (`record_type eq dataset` and `metadata.size >
-- 980`) walked the path's numbers in the listing's order and compared each: about fifty
-- entries per match for a range holding 2 % of them, and for the starred part of a caller
-- who starred a tenth of the assets, 64,259 entries for 1,286 in range (48 ms of a 62 ms
-- page). The numbers are now also kept by value, so that a range whose walk yields too
-- little gathers its matches after the walk's stop from the range's bound outwards, reading
-- only them, sorts them into the listing's order and fetches them in that order until the
-- page is full (docs/asset-query.md, "Ranges on metadata numbers"). One index for a path's
-- numbers, one for a record type's numbers of a path.
create index asset_metadata_numbers_by_value on asset_metadata_numbers (path, value) include (created_at, asset_id);
create index asset_metadata_numbers_typed_by_value on asset_metadata_numbers (path, record_type, value) include (created_at, asset_id);
-- Its gathers read the indexes alone once the visibility map is set.
-- cairn:vacuum-after asset_metadata_numbers
