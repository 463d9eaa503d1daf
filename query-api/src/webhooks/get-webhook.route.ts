import { getWebhook } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { findWebhook, presentWebhook, webhookVisibleTo } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

export const getWebhookRoute = (deps: QueryDeps) =>
  implement(getWebhook, async ({ params, context }) => {
    if (!context.caller) throw httpErrors.unauthenticated();
    const row = await findWebhook(deps.db, params['id'] ?? '');
    if (!webhookVisibleTo(row, context.caller)) throw httpErrors.notFound('Webhook not found.');
    return { status: 200, body: presentWebhook(row) };
  });
