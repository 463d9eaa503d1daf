-- The asset listing's `collection_id` filter (and a query's `collection_id` eq or contains)
-- walks the collection's assets in the listing's order, -created_at then id, from the
-- cursor (docs/assets.md "Filters with an ordered index walk it"). The collection listing's
-- own index (collection_assets_created) walked backwards reverses the ids of equal creation
-- times too, so it cannot give this order; before this index, such a page gathered the
-- collection's every asset through the GIN index of assets.collection_ids and sorted them.
create index collection_assets_listing on collection_assets (collection_id, created_at desc, asset_id);
