-- A query's range on a metadata number beside a record type (`record_type eq dataset` and
-- `metadata.size > 900`) walked whichever of the two was rarer and fetched every asset it
-- found to check the other: about 5,000 assets fetched (7 µs each) for a page of 100 when
-- both are a few per cent. Each row of asset_metadata_numbers now holds its asset's record
-- type, included in the walk's index: the walk checks the type and the number on the index
-- entry (0.1 µs) and fetches only the assets of both (docs/asset-query.md "Ranges on
-- metadata numbers"). The projection keeps it as the asset's type changes.
create table asset_metadata_numbers_typed (
  path bigint not null,
  value numeric not null,
  created_at timestamptz not null,
  asset_id uuid not null,
  record_type text not null
);
insert into asset_metadata_numbers_typed (path, value, created_at, asset_id, record_type)
select n.path, n.value, n.created_at, n.asset_id, a.record_type from asset_metadata_numbers n join assets a on a.id = n.asset_id;
drop table asset_metadata_numbers;
alter table asset_metadata_numbers_typed rename to asset_metadata_numbers;
alter table asset_metadata_numbers add constraint asset_metadata_numbers_pkey primary key (asset_id, path, value);
create index asset_metadata_numbers_walk on asset_metadata_numbers (path, created_at desc, asset_id) include (value, record_type);
analyze asset_metadata_numbers;
