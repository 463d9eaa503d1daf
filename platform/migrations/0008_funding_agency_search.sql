-- `q` matches a substring of the name or of the abbreviation, each on its own (never a
-- text spanning both), so each field gets its own trigram index.
drop index if exists funding_agencies_search;
create index funding_agencies_name_search on funding_agencies using gin (lower(name) gin_trgm_ops);
create index funding_agencies_abbreviation_search on funding_agencies using gin (lower(abbreviation) gin_trgm_ops);
