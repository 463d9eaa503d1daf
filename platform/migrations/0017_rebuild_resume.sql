-- An interrupted `cairn projections rebuild` keeps its copy (schema rebuild_<name>) and
-- where its replay stood here; the next rebuild of the same version goes on from there
-- (docs/projections.md).
create table projection_rebuilds (
  name text primary key,
  version integer not null,
  major text not null,
  minor text not null,
  applied bigint not null,
  replayed bigint not null,
  updated_at timestamptz not null default now()
);
