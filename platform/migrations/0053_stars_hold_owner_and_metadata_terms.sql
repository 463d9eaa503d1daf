-- The starred part of a listing filtered by a metadata value or an owner, for a caller
-- with few stars, read every star and fetched each one's asset to check the filter: 202
-- stars were 1.1 ms of a 2.3 ms metadata page on the 1,000,000-asset bench, for two
-- matches (docs/benchmarks.md, twentieth sitting). Each star now also holds its asset's
-- owner and metadata terms (the terms of asset_metadata_order, metadata-leaves.ts), checked
-- on the star's entry in an index of their own (asset_stars_copies) as its text, record type
-- and tags are on asset_stars_order (migrations 0040, 0041): only candidates are fetched.
--
-- A star copies them from its asset's row, so the asset keeps its terms too (at most 32;
-- more, or none known, is null: the star is then a candidate the page checks on its asset,
-- which also bounds the index entry). The assets' terms are written by the projection from
-- now on: filling them here would rewrite every asset and each of its indexes, so assets
-- written before hold null until their metadata changes or the projection is rebuilt, and
-- a star given to one of them later is a candidate. The stars of today are filled from the
-- postings, which hold the same terms.
--
-- Stop every process of the older version before this applies (as for 0040 and 0041): one
-- still projecting would leave a star's copies as they were when its asset's metadata or
-- owner changes, and the listing, which trusts copies it knows, would miss the asset.
--
-- The stars first, their index dropped while they are rewritten; `assets` last, so that its
-- exclusive lock (a new column, no rewrite) is held only for the end of the transaction, not
-- for the stars' rewrite (16–35 s over the bench's 144,614 stars).
alter table asset_stars add column owner_id uuid, add column metadata_terms bigint[];
drop index asset_stars_order;
update asset_stars s set owner_id = a.owner_id,
  metadata_terms = (select coalesce(array_agg(m.term order by m.term), '{}') from asset_metadata_order m where m.asset_id = s.asset_id having count(*) <= 32)
from assets a where a.id = s.asset_id;
-- The walk of the order keeps its index as it was; the copies have one of their own. Held in
-- asset_stars_order, they made it three times as large (7,923 pages against 2,725), and the
-- first page of the bench's caller with 100,000 stars, whose plan weighs that index against
-- reading the table and sorting it, read all the stars and sorted them (145 ms instead of 4).
create index asset_stars_order on asset_stars (user_id, asset_created_at desc, asset_id) include (search_text, record_type_hash, tag_hashes);
create index asset_stars_copies on asset_stars (user_id, asset_created_at desc, asset_id) include (owner_id, metadata_terms);
alter table assets add column metadata_terms bigint[];
-- Every star was rewritten: vacuumed once this commits, its walks read the index alone again.
-- cairn:vacuum-after asset_stars
