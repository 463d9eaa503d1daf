-- `q` walks the listing's order (-created_at, id) and checks each entry for the substring
-- (migration 0034). It checked `lower(title)` and `lower(alias)` on the entry: lowercasing
-- cost about 1.2 µs an entry, six times the rest of the check (docs/benchmarks.md, eighth
-- sitting), and a page of a rare `q` reads 8,000 entries. The two lowercased texts are now
-- kept on the row, joined by a line feed, and the order's entries include them: the walk
-- checks one `like` on text lowercased once, when the asset was written. A `q` holding a
-- line feed may match across the two texts there; the page checks the filter itself on
-- every asset it fetches, as for every walk.
alter table assets add column search_text text generated always as (lower(title) || E'\n' || lower(alias)) stored;
create index assets_order_search on assets (created_at desc, id) include (search_text);
drop index assets_order_text;
