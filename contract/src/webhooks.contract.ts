import { defineContract } from '@cairn/platform';
import { z } from 'zod';
import { changeKinds } from './changes.contract.ts';
import { dateTime, queryInteger, uuid, uuidInput } from './fields.ts';

// Issue 28: the change feed delivered as signed POSTs (docs/changes.md, "Webhooks").

export const webhookSchema = z
  .object({
    id: uuid,
    owner_id: uuid.describe('The user whose view of the feed is delivered: changes are sent only if this user may see them when they are sent.'),
    url: z.string(),
    collection_id: uuid.nullable().describe('Only changes of this collection’s subtree.'),
    asset_id: uuid.nullable().describe('Only changes of this asset.'),
    kinds: z.array(z.enum(changeKinds)).describe('Only changes of these kinds; empty: every kind.'),
    status: z.enum(['active', 'paused']),
    paused_reason: z.string().nullable().describe('Why deliveries stopped: the last failure once too many failed in a row, or the owner’s pause.'),
    paused_at: dateTime.nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Webhook' });

export const createdWebhookSchema = webhookSchema
  .extend({ secret: z.string().describe('The signing secret: answered here once, never again.') })
  .meta({ id: 'CreatedWebhook' });

const webhookUrl = z.string().trim().min(1, 'This field may not be blank.').max(2000, 'Ensure this field has no more than 2000 characters.');
const webhookSecret = z.string().min(16, 'Ensure this field has at least 16 characters.').max(200, 'Ensure this field has no more than 200 characters.');
const kindList = z.array(z.enum(changeKinds), { error: `Must be a list of: ${changeKinds.join(', ')}.` }).max(changeKinds.length);

export const webhookWriteSchema = z
  .object({
    url: webhookUrl.describe('Where the changes are POSTed: https, to a public address (docs/changes.md).'),
    secret: webhookSecret.optional().describe('The signing secret; absent: one is made and answered once.'),
    collection_id: uuidInput.nullish(),
    asset_id: uuidInput.nullish(),
    kinds: kindList.optional(),
  })
  .meta({ id: 'WebhookWrite' });

export const patchedWebhookWriteSchema = z
  .object({
    url: webhookUrl.optional(),
    secret: webhookSecret.optional().describe('A new signing secret (rotation); never answered.'),
    collection_id: uuidInput.nullish(),
    asset_id: uuidInput.nullish(),
    kinds: kindList.optional(),
    status: z.enum(['active', 'paused']).optional().describe('`paused` stops deliveries; `active` resumes a paused subscription where it stopped.'),
  })
  .meta({ id: 'PatchedWebhookWrite' });

export const webhookDeliverySchema = z
  .object({
    id: uuid,
    webhook_id: uuid,
    position: z.string().describe('The delivered change’s position in the log.'),
    change_kind: z.string(),
    attempt: z.int().describe('Which attempt at this change it was (1 for the first).'),
    replay_of: uuid.nullable().describe('The delivery this one replayed, if it was a replay.'),
    outcome: z.enum(['delivered', 'failed']),
    status_code: z.int().nullable().describe('The receiver’s HTTP status; null when none came (refused target, timeout, connection error).'),
    error: z.string().nullable(),
    duration_ms: z.int(),
    attempted_at: dateTime,
    body: z.unknown().describe('The body as it was sent.'),
  })
  .meta({ id: 'WebhookDelivery' });

const tag = 'webhooks';
const readModels = ['webhooks'];

export const listWebhooks = defineContract({
  operationId: 'webhooks_list',
  method: 'get',
  path: '/api/webhooks/',
  summary: 'The caller’s webhook subscriptions (every one for a system administrator), oldest first.',
  tag,
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The subscriptions.', schema: z.array(webhookSchema) } },
  readModels,
});

export const createWebhook = defineContract({
  operationId: 'webhooks_create',
  method: 'post',
  path: '/api/webhooks/',
  summary: 'Subscribe a URL to the changes the caller may see, from now on, with the filters of GET /api/changes/.',
  tag,
  side: 'command',
  authenticated: true,
  body: webhookWriteSchema,
  bodyRequired: true,
  responses: { 201: { description: 'Created; the secret is answered this once.', schema: createdWebhookSchema } },
  readModels,
});

export const getWebhook = defineContract({
  operationId: 'webhooks_retrieve',
  method: 'get',
  path: '/api/webhooks/{id}/',
  summary: 'One subscription (its owner and system administrators).',
  tag,
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The subscription.', schema: webhookSchema } },
  readModels,
});

export const updateWebhook = defineContract({
  operationId: 'webhooks_partial_update',
  method: 'patch',
  path: '/api/webhooks/{id}/',
  summary: 'Change a subscription’s URL, filters or secret, pause it, or resume it where it stopped.',
  tag,
  side: 'command',
  authenticated: true,
  body: patchedWebhookWriteSchema,
  responses: { 200: { description: 'The changed subscription.', schema: webhookSchema } },
  readModels,
});

export const deleteWebhook = defineContract({
  operationId: 'webhooks_destroy',
  method: 'delete',
  path: '/api/webhooks/{id}/',
  summary: 'Delete a subscription: nothing more is delivered.',
  tag,
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Deleted.' } },
  readModels,
});

export const listWebhookDeliveries = defineContract({
  operationId: 'webhooks_deliveries_list',
  method: 'get',
  path: '/api/webhooks/{id}/deliveries/',
  summary: 'The delivery log of a subscription, newest first: every attempt, its answer and the body sent.',
  tag,
  side: 'query',
  authenticated: true,
  query: z.object({ limit: queryInteger((n) => Math.min(Math.max(n, 1), 500)).optional().describe('Attempts to answer: default 100, at most 500.') }),
  responses: { 200: { description: 'The attempts.', schema: z.array(webhookDeliverySchema) } },
  appendsEvents: false,
  readModels,
});

export const replayWebhookDelivery = defineContract({
  operationId: 'webhooks_deliveries_replay_create',
  method: 'post',
  path: '/api/webhooks/{id}/deliveries/{delivery_id}/replay/',
  summary: 'Send a logged delivery again, with the same body and delivery id and a fresh signature: as a job, logged like any attempt.',
  tag,
  side: 'command',
  authenticated: true,
  responses: { 202: { description: 'The replay is queued.' } },
  readModels,
});

export const webhookContracts = [listWebhooks, createWebhook, getWebhook, updateWebhook, deleteWebhook, listWebhookDeliveries, replayWebhookDelivery];
