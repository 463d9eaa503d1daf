-- The migrations a stopped rebuild's copy was made under, by name, read in the save's own
-- snapshot: a rebuild resumes only when the migrations are still those (docs/projections.md).
-- Compared by time before, a migration whose transaction began before the save and
-- committed after it slipped by (its applied_at, its transaction's start, was earlier).
-- Saved points of earlier versions have none, and start over.
alter table projection_rebuilds add column migrations_seen text;
