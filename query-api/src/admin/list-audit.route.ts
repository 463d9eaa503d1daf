import { listAudit } from '@cairn/contract';
import { actorHistory, auditEntryJson, decodePosition, encodePosition, entityHistory, httpErrors, implement } from '@cairn/platform';
import type { QueryDeps } from '../deps.ts';

/** Issue 13: `cairn audit log` over the API, for system administrators; the cursor is the last entry's position. */
export const listAuditRoute = (deps: QueryDeps) =>
  implement(listAudit, async ({ query, context }) => {
    if (!context.caller?.isSystemAdmin) throw httpErrors.forbidden('Only a system administrator may read the audit history.');
    if ((query.entity === undefined) === (query.actor === undefined)) throw httpErrors.validation({ non_field_errors: ['Name either `entity` or `actor`.'] });
    const after = query.cursor === undefined ? undefined : decodePosition(query.cursor);
    if (after === null) throw httpErrors.validation({ cursor: ['This cursor is not valid.'] });
    const limit = query.limit ?? 100;
    const filter = {
      after,
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
      types: query.type?.split(',').map((t) => t.trim()).filter(Boolean),
      // One more than the page: whether another page exists.
      limit: limit + 1,
    };
    const { eventStore, pool } = deps.audit;
    const entries = query.entity ? await entityHistory(eventStore, query.entity, filter) : await actorHistory(eventStore, pool, (query.actor ?? '').toLowerCase(), filter);
    const page = entries.slice(0, limit);
    const more = entries.length > limit;
    const last = page.at(-1);
    return {
      status: 200,
      body: page.map(auditEntryJson),
      headers: { 'X-Page-Limit': String(limit), 'X-Has-More': String(more), ...(more && last ? { 'X-Next-Cursor': encodePosition(last.event.position) } : {}) },
    };
  });
