-- Direct uploads: the open ones of an allocation are counted at every start
-- (CAIRN_UPLOAD_MAX_OPEN, docs/storage.md "Direct uploads").
create index content_uploads_open on content_uploads (allocation_id) where status = 'open';
