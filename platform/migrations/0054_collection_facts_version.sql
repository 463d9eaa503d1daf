-- What the collections give the callers of a page (their readers, the readers of the assets
-- they hold, their entries and what flows down to them) changes only when a collection is
-- moved, has its entries set, or is deleted. The collections projection writes the id of
-- the last such event here, in the same transaction (a collection's first creation writes
-- the first version). A page statement reads it in its own snapshot and, when it equals the
-- version the service kept the facts of its collections under, leaves those facts out
-- (projections/src/assets/held-facts-cache.ts): looking up the hundred collections of a page
-- was a sixth of the benchmark's SQL (docs/benchmarks.md, twenty-first sitting).
-- Anything else that changes those columns (a migration, a repair by hand) must write a new
-- version too, or the service keeps answering with the facts from before it.
create table collection_facts_version (
  singleton boolean primary key default true check (singleton),
  version text not null
);

-- Collections written before this migration: the version a rebuild would write, from the log
-- (its global order is (transaction_id, position)), so that `projections verify` finds the
-- same row. Reading the log backwards for it is one walk of its index, once. On EventStoreDB
-- the log is not here: the row then comes with the next collection event, and until then no
-- facts are kept.
insert into collection_facts_version (version)
select v from (select coalesce(
  (select e.event_id::text from events e where e.type in ('CollectionMoved', 'CollectionPermissionsSet', 'CollectionDeleted') order by e.transaction_id desc, e.position desc limit 1),
  (select e.event_id::text from events e where e.type = 'CollectionCreated' order by e.transaction_id, e.position limit 1)) as v) x
where v is not null;
