-- Direct uploads (issue 25; docs/storage.md "Direct uploads"): what open uploads hold on
-- their allocation, and the uploads themselves. No upload existed before, so every
-- existing allocation holds nothing.
alter table allocations add column reserved_bytes bigint not null default 0;

create table content_uploads (
  id uuid primary key,
  asset_id uuid not null,
  repository_id uuid not null,
  allocation_id uuid not null,
  key text not null,
  filename text not null,
  content_type text not null,
  size bigint not null,
  sha256 text,
  part_size bigint not null,
  part_count integer not null,
  -- S3's UploadId of the multipart upload; null on fs.
  storage_upload_id text,
  status text not null check (status in ('open', 'completed', 'aborted')),
  end_reason text,
  expires_at timestamptz not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index content_uploads_asset on content_uploads (asset_id, created_at, id);
