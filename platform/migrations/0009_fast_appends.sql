-- Appends serialize per stream on a transaction advisory lock taken before the writing
-- transaction gets its id, so a stream's events are in stream order in the global log
-- too; the stream's version is then read from its last event, and the `streams` row
-- (one more write and index entry per append) is no longer needed.
drop table streams;

-- The global order is the primary key: one index serves the log read, the head and
-- uniqueness. Nothing reads by position alone, and nothing filters the log by type
-- without the order, so those two indexes only cost every append.
alter table events drop constraint events_pkey;
drop index events_global_order;
drop index events_type;
alter table events add constraint events_pkey primary key (transaction_id, position);

-- Inline projections (applied in the append's transaction) keep a row here for their
-- version and for rebuilds, but no moving checkpoint.
alter table projection_checkpoints drop constraint projection_checkpoints_status_check;
alter table projection_checkpoints add constraint projection_checkpoints_status_check check (status in ('running', 'failed', 'rebuilding', 'inline'));
