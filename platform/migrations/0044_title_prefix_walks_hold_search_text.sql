-- A title prefix's walk checks the whole prefix on each entry of the index of its first
-- lowercased characters (migration 0034). The entries held the title, lowercased on every
-- entry to compare: `lower(title) like 'coastal s%'` cost 2 µs an entry, most of a prefix
-- page's time (a page read about 1,300 entries). The indexes are now keyed by the first
-- characters of `search_text`, the title and the alias lowercased when written (migration
-- 0037), and hold it, so the walk compares its start (`starts_with`, 0.17 µs an entry) and
-- reads the index alone (PostgreSQL reads an expression index alone only when it holds the
-- expression's column). A title shorter than the key continues into the alias there, and
-- can only make a candidate for a prefix holding a line feed, which the page checks on the
-- asset (docs/assets.md, "The listing").
create index assets_title_prefix_walk_3_text on assets (left(search_text, 3), created_at desc, id) include (search_text);
create index assets_title_prefix_walk_6_text on assets (left(search_text, 6), created_at desc, id) include (search_text);
create index assets_title_prefix_walk_10_text on assets (left(search_text, 10), created_at desc, id) include (search_text);
drop index assets_title_prefix_walk_3;
drop index assets_title_prefix_walk_6;
drop index assets_title_prefix_walk_10;
alter index assets_title_prefix_walk_3_text rename to assets_title_prefix_walk_3;
alter index assets_title_prefix_walk_6_text rename to assets_title_prefix_walk_6;
alter index assets_title_prefix_walk_10_text rename to assets_title_prefix_walk_10;
-- The keys' statistics: without them PostgreSQL takes a key for common and gathers its rows.
analyze assets;
