-- A GIN index takes new entries into a pending list first, merged into the index by vacuum
-- or once the list outgrows gin_pending_list_limit (4 MB), and every search reads the whole
-- list. Moving a subtree rewrites each of its collections several times (the chain, what
-- flows down), so two moves of 1,000 collections left thousands of trigram entries pending:
-- PostgreSQL then costed `GET /api/collections/?q=` through the trigram indexes above a scan
-- of every collection and scanned them (11 ms at 13,000 collections, against under 1 ms;
-- docs/benchmarks.md, twelfth sitting). Collections are written rarely and read often:
-- their GIN indexes take each entry into the index at once, and what is pending is merged now.
alter index collections_title_search set (fastupdate = off);
alter index collections_alias_search set (fastupdate = off);
alter index collections_readers set (fastupdate = off);
alter index collections_asset_readers set (fastupdate = off);
alter index collections_ancestors set (fastupdate = off);
select gin_clean_pending_list(i) from unnest(array['collections_title_search', 'collections_alias_search', 'collections_readers', 'collections_asset_readers', 'collections_ancestors']::regclass[]) i;
