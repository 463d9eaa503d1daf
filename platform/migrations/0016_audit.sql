-- The audit by actor (`cairn audit log --actor`, GET /api/admin/audit/?actor=): one actor's
-- events in log order without a scan of the log (docs/audit.md).
create index events_actor on events ((metadata->>'actorId'), transaction_id, position);
