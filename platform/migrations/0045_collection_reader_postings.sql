-- The collection listing walked collections_order from the cursor and dropped the entries
-- whose readers hold none of the caller's principals: for a caller who sees one collection
-- in 36 of the newest (the bench's, at 13,000 collections), a page of 100 read 3,675
-- entries, and a caller who sees fewer would read the whole index. The readers are now also
-- kept as postings, one row per collection and principal, walked in the listing's order
-- per principal: a page reads at most `limit` entries for each of the caller's principals
-- (docs/collections.md, "Collections by reader"). The collections projection keeps them
-- as a collection's readers change (its own entries, an ancestor's, a move).
-- Held until this commits: a collection written between the copy and the commit would have no postings.
lock table collections in share mode;
create table collection_reader_order (
  collection_id uuid not null,
  principal text not null,
  created_at timestamptz not null,
  primary key (collection_id, principal)
);
insert into collection_reader_order (collection_id, principal, created_at)
select c.id, r.principal, c.created_at from collections c, unnest(c.readers) r(principal) group by c.id, r.principal, c.created_at;
create index collection_reader_walk on collection_reader_order (principal, created_at desc, collection_id);
analyze collection_reader_order;
-- The walks read the index alone once the table is vacuumed (its visibility map set): until then, PostgreSQL gathers each principal's postings through a bitmap and sorts them.
-- cairn:vacuum-after collection_reader_order
