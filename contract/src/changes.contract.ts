import { defineContract } from '@cairn/platform';
import { z } from 'zod';
import { dateTime, queryInteger, uuid, uuidInput } from './fields.ts';

// Issue 28: the change feed (docs/changes.md).

/** The kinds of resource a change is about; `kinds=` filters on them. */
export const changeKinds = ['asset', 'content', 'note', 'markdown_note', 'relationship', 'collection'] as const;
export type ChangeKind = (typeof changeKinds)[number];

/**
 * `access_changed`: who may do what on the resource changed (its entries, its owner); the
 * caller may read it now, and may not have been able to before.
 */
export const changeActions = ['created', 'updated', 'deleted', 'access_changed'] as const;
export type ChangeAction = (typeof changeActions)[number];

/** A position of the log as the feed writes it: the log part of an `X-Consistency-Token`. */
export const changePositionPattern = /^[0-9a-z]{1,14}\.[0-9a-z]{1,14}$/;
/** What `after` takes: a position, or a whole token (its WAL part, for standbys, is ignored here). */
export const changeAfterPattern = /^[0-9a-z]{1,14}\.[0-9a-z]{1,14}(\.[0-9a-z]{1,14})?$/;

export const changeSchema = z
  .object({
    position: z.string().describe('The change’s place in the log: pass it as `after` (or `Last-Event-ID`) to go on after it. An `X-Consistency-Token` is one too.'),
    kind: z.enum(changeKinds),
    id: uuid.describe('The resource’s id (for a markdown note: its asset’s).'),
    asset_id: uuid.nullable().describe('The asset the resource belongs to (the asset itself for `asset`); null for a collection.'),
    action: z.enum(changeActions),
    fields: z
      .record(z.string(), z.unknown())
      .describe('The fields the change set, with their new values, named as the resource’s own reads name them; only fields the caller may read now. Empty for `deleted`, and for a change of permission entries.'),
    occurred_at: dateTime,
  })
  .meta({ id: 'Change' });
export type Change = z.output<typeof changeSchema>;

export const changePageSchema = z
  .object({
    changes: z.array(changeSchema),
    next: z.string().describe('Where the next page starts: pass it as `after`. It moves past the log scanned even when `changes` is empty.'),
    has_more: z.boolean().describe('Whether the log held more than this page when it was read: false means the caller is up to date.'),
  })
  .meta({ id: 'ChangePage' });

export const maxChangePage = 1000;

const isKind = (k: string): k is ChangeKind => (changeKinds as readonly string[]).includes(k);

const kindList = z
  .string()
  .max(200)
  .transform((text) => text.split(',').map((k) => k.trim()).filter((k) => k.length > 0))
  .refine((kinds): kinds is ChangeKind[] => kinds.every(isKind), `Each kind must be one of ${changeKinds.join(', ')}.`);

export const changesQuery = z.object({
  after: z.string().regex(changeAfterPattern, 'Must be a position from this feed (or an X-Consistency-Token).').optional().describe('Start after this position; absent: from the start of the log.'),
  limit: queryInteger((n) => Math.min(Math.max(n, 1), maxChangePage)).optional().describe(`Changes per page: default 100, at most ${maxChangePage}.`),
  collection_id: uuidInput.optional().describe('Only changes of this collection, the collections under it, and what they hold.'),
  asset_id: uuidInput.optional().describe('Only changes of this asset and of its content, notes and relationships.'),
  kinds: kindList.optional().describe(`Only these kinds, comma-separated: ${changeKinds.join(', ')}.`),
});

export const listChanges = defineContract({
  operationId: 'changes_list',
  method: 'get',
  path: '/api/changes/',
  summary:
    'The changes to assets, their content, notes and relationships, and collections that the caller may see now, in log order. With `Accept: text/event-stream`, the same changes as Server-Sent Events that follow the log live (`id:` is the position; reconnect with `Last-Event-ID`).',
  tag: 'changes',
  side: 'query',
  authenticated: true,
  query: changesQuery,
  responses: {
    200: {
      description: 'One page of changes; or, asked for `text/event-stream`, a stream of `change` events with heartbeat comments.',
      schema: changePageSchema,
      headers: ['Cache-Control', 'X-Accel-Buffering'],
      stream: { contentType: 'text/event-stream', description: 'Events `change` (data: a Change as JSON, id: its position), and `: heartbeat` comments.' },
    },
  },
  // 429: too many open streams for this caller or process (docs/changes.md).
  errors: [429],
  appendsEvents: false,
  readModels: ['assets', 'collections', 'identity', 'groups', 'projects'],
});

export const changeContracts = [listChanges];
