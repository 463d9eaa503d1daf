-- A metadata value beside tags (the query's `metadata.instrument eq INST-007` and `tags
-- contains sediment`, a listing's `metadata=` with `tags=`) walked the value's postings and
-- joined the tag's postings over the walk's span: the value is rare, so that span was most
-- of the order, and the page merged 119,813 of `sediment`'s entries (22 of a 43 ms
-- statement) to keep 1,180 of 7,653. Each metadata posting now holds its asset's tags,
-- hashed as the stars hold them (migration 0041: 32 bits of md5 a tag), included in the
-- walk's index: the walk checks the tags on the entry and fetches only the assets of both
-- (docs/assets.md). A hash two tags share only makes a candidate, which the page checks on
-- its asset. The projection keeps them as the asset's tags change.
-- Held until this commits: a write of a posting between the copy and the swap would be lost with the old table.
lock table asset_metadata_order in exclusive mode;
create table asset_metadata_order_tagged (
  term bigint not null,
  created_at timestamptz not null,
  asset_id uuid not null,
  record_type text not null,
  tag_hashes integer[] not null
);
insert into asset_metadata_order_tagged (term, created_at, asset_id, record_type, tag_hashes)
select m.term, m.created_at, m.asset_id, m.record_type, coalesce(cairn_text_hashes(a.tags), '{}') from asset_metadata_order m join assets a on a.id = m.asset_id;
drop table asset_metadata_order;
alter table asset_metadata_order_tagged rename to asset_metadata_order;
alter table asset_metadata_order add constraint asset_metadata_order_pkey primary key (asset_id, term);
create index asset_metadata_order_walk on asset_metadata_order (term, created_at desc, asset_id) include (record_type, tag_hashes);
analyze asset_metadata_order;
-- Written anew: vacuumed once this commits, its walks read the index alone.
-- cairn:vacuum-after asset_metadata_order
