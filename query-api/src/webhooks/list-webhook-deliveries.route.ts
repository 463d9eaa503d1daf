import { listWebhookDeliveries } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { findWebhook, listWebhookDeliveries as readDeliveries, presentWebhookDelivery, webhookVisibleTo } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

export const listWebhookDeliveriesRoute = (deps: QueryDeps) =>
  implement(listWebhookDeliveries, async ({ params, query, context }) => {
    if (!context.caller) throw httpErrors.unauthenticated();
    const id = params['id'] ?? '';
    if (!webhookVisibleTo(await findWebhook(deps.db, id), context.caller)) throw httpErrors.notFound('Webhook not found.');
    return { status: 200, body: (await readDeliveries(deps.db, id, query.limit ?? 100)).map(presentWebhookDelivery) };
  });
