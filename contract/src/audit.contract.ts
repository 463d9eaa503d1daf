import { defineContract } from '@cairn/platform';
import { z } from 'zod';
import { dateTime, uuid, uuidInput } from './fields.ts';

// Issue 13: the audit history over the API, for system administrators (docs/audit.md).

export const auditEntrySchema = z
  .object({
    position: z.string().describe('The event’s place in the log; also what `cursor` pages from.'),
    recorded_at: dateTime,
    event_id: uuid,
    stream_id: z.string(),
    stream_version: z.number().int(),
    type: z.string(),
    actor_id: uuid.nullable().describe('The user who caused it; null for an operator or a job.'),
    request_id: z.string().nullable(),
    correlation_id: z.string().nullable(),
    changes: z.record(z.string(), z.object({ before: z.unknown(), after: z.unknown() })).describe('Each field the event changed, before and after.'),
  })
  .meta({ id: 'AuditEntry' });

export const listAudit = defineContract({
  operationId: 'admin_audit_list',
  method: 'get',
  path: '/api/admin/audit/',
  summary: 'The events of one entity or of one actor, in log order, with what each changed (system administrators); keyset pages like the asset listing.',
  tag: 'admin',
  side: 'query',
  authenticated: true,
  query: z.object({
    entity: uuidInput.optional().describe('An asset, collection, project, user, organization, group, allocation... id.'),
    actor: uuidInput.optional().describe('A user id: the events that user caused.'),
    type: z.string().max(2000).optional().describe('Event types, comma-separated.'),
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    cursor: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(1000).optional(),
  }),
  responses: { 200: { description: 'One page of entries; X-Page-Limit, X-Has-More, X-Next-Cursor.', schema: z.array(auditEntrySchema) } },
  readModels: [],
});
