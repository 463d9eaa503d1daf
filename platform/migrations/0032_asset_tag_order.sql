-- Each asset's tags in the listing's order (-created_at, id), one row per tag: a tag
-- filter walks its own rows from the cursor and stops when the page is full, instead of
-- gathering every asset holding the tag through the GIN index and sorting them
-- (docs/assets.md "The listing"). Kept by the assets projection.
create table asset_tag_order (
  tag text not null,
  created_at timestamptz not null,
  asset_id uuid not null,
  primary key (asset_id, tag)
);
create index asset_tag_order_walk on asset_tag_order (tag, created_at desc, asset_id);
-- A page with several tags walks the rarest: the statistics keep how common each is.
alter table asset_tag_order alter column tag set statistics 1000;

insert into asset_tag_order (tag, created_at, asset_id)
select distinct t.tag, a.created_at, a.id from assets a cross join unnest(a.tags) as t(tag);
