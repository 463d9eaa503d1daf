-- Two tags (a listing's `tags=ice-core-raw,bird-migration`, a query's two `tags contains`)
-- walked the rarer tag's postings and joined the other's over the walk's span: the walk's
-- entries were read three times (its last creation time, the walk, where it stopped) and
-- the other tag's merged, 19,911 of them for 271 pairs (26 ms of a page's 57). Each tag
-- posting now holds its asset's tags, hashed as the metadata postings hold them (migration
-- 0048: 32 bits of md5 a tag), included in the walk's index: the walk checks the other tags
-- on the entry and fetches only the assets of all of them (docs/assets.md). A hash two tags
-- share only makes a candidate, which the page checks on its asset. The projection keeps
-- them as the asset's tags change (a tag posting is remade then).
-- Held until this commits: a write of a posting between the copy and the swap would be lost with the old table.
lock table asset_tag_order in exclusive mode;
create table asset_tag_order_tagged (
  tag text not null,
  created_at timestamptz not null,
  asset_id uuid not null,
  record_type text not null,
  tag_hashes integer[] not null
);
insert into asset_tag_order_tagged (tag, created_at, asset_id, record_type, tag_hashes)
select t.tag, t.created_at, t.asset_id, t.record_type, coalesce(cairn_text_hashes(a.tags), '{}') from asset_tag_order t join assets a on a.id = t.asset_id;
-- The keys are built before the old table goes: readers of the postings wait only for the drop and the renames.
alter table asset_tag_order_tagged add constraint asset_tag_order_tagged_pkey primary key (asset_id, tag);
create index asset_tag_order_tagged_walk on asset_tag_order_tagged (tag, created_at desc, asset_id) include (record_type, tag_hashes);
alter table asset_tag_order_tagged alter column tag set statistics 1000;
analyze asset_tag_order_tagged;
drop table asset_tag_order;
alter table asset_tag_order_tagged rename to asset_tag_order;
alter table asset_tag_order rename constraint asset_tag_order_tagged_pkey to asset_tag_order_pkey;
alter index asset_tag_order_tagged_walk rename to asset_tag_order_walk;
-- Written anew: vacuumed once this commits, its walks read the index alone.
-- cairn:vacuum-after asset_tag_order
