-- What the collections give the callers of a page (their readers, the readers of the assets
-- they hold, their entries and what flows down to them) changes only when a collection is
-- moved, has its entries set, or is deleted. The collections projection writes the id of
-- each such event here, in the event's own transaction. A page statement reads it in its own
-- snapshot, with this table's file and the migrations applied (which a rebuild's swap, a
-- reset's truncate and a migration change), and when that equals the version the service kept the
-- facts of its collections under, leaves those facts out
-- (projections/src/assets/held-facts-cache.ts): looking up the hundred collections of a page
-- was a sixth of the benchmark's SQL (docs/benchmarks.md, twenty-first sitting).
-- Empty at first: the first such event writes the row, and until then the version reads
-- 'none'. A repair by hand of the collections' grants or tree must write a new version
-- (update collection_facts_version set version = gen_random_uuid()::text), or the running
-- processes keep answering with the facts from before it. Stop processes of an older version
-- before starting this one: they would change collections without writing a version.
create table collection_facts_version (
  singleton boolean primary key default true check (singleton),
  version text not null
);
