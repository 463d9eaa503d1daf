-- The starred part of a `q` listing walks the caller's stars and checks the text on each
-- star's index entry (docs/assets.md "Filters with an ordered index walk it"): each star
-- holds its asset's `search_text` (migration 0037: the title and alias lowercased, joined
-- by a line feed), included in the stars' walk index. Before, a caller with 100,000 stars
-- had that part read by windows that ANDed 280,000 entries of the order's index into the
-- trigram bitmaps and hashed 28,000 stars (15–40 ms a page). The assets projection writes
-- it with the star and again when the title or alias changes; a star whose text is null
-- (none known) is a candidate the page checks on its asset.
alter table asset_stars add column search_text text;
update asset_stars s set search_text = a.search_text from assets a where a.id = s.asset_id;
drop index asset_stars_order;
create index asset_stars_order on asset_stars (user_id, asset_created_at desc, asset_id) include (search_text);
