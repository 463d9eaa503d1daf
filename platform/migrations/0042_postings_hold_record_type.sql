-- A tag or a metadata value beside a record type (the query's `tags contains nutrient` and
-- `record_type in [dataset, document]`, or a listing's `tags=` with `record_type=`) walked
-- the tag's or the value's postings and fetched every asset they named to check its type:
-- 2,019 assets fetched (7 µs each) for a page of 89, when one asset in ten has the type.
-- Each posting now holds its asset's record type, included in the walk's index, as the
-- numbers' postings do (migration 0038): the walk checks the type on the index entry
-- (0.1 µs) and fetches only the assets of both (docs/assets.md, "Postings that hold the
-- record type"). The projection keeps it as the asset's type changes.
-- Held until this commits: a write of a posting between the copy and the swap would be lost with the old table.
lock table asset_tag_order, asset_metadata_order in exclusive mode;
create table asset_tag_order_typed (
  tag text not null,
  created_at timestamptz not null,
  asset_id uuid not null,
  record_type text not null
);
insert into asset_tag_order_typed (tag, created_at, asset_id, record_type)
select t.tag, t.created_at, t.asset_id, a.record_type from asset_tag_order t join assets a on a.id = t.asset_id;
drop table asset_tag_order;
alter table asset_tag_order_typed rename to asset_tag_order;
alter table asset_tag_order add constraint asset_tag_order_pkey primary key (asset_id, tag);
create index asset_tag_order_walk on asset_tag_order (tag, created_at desc, asset_id) include (record_type);
alter table asset_tag_order alter column tag set statistics 1000;
analyze asset_tag_order;

create table asset_metadata_order_typed (
  term bigint not null,
  created_at timestamptz not null,
  asset_id uuid not null,
  record_type text not null
);
insert into asset_metadata_order_typed (term, created_at, asset_id, record_type)
select m.term, m.created_at, m.asset_id, a.record_type from asset_metadata_order m join assets a on a.id = m.asset_id;
drop table asset_metadata_order;
alter table asset_metadata_order_typed rename to asset_metadata_order;
alter table asset_metadata_order add constraint asset_metadata_order_pkey primary key (asset_id, term);
create index asset_metadata_order_walk on asset_metadata_order (term, created_at desc, asset_id) include (record_type);
analyze asset_metadata_order;
-- Both tables were written anew: vacuumed once this commits, their walks read the index alone.
-- cairn:vacuum-after asset_tag_order
-- cairn:vacuum-after asset_metadata_order
