import type { BoundOperation } from '@cairn/platform';
import type { QueryDeps } from '../deps.ts';
import { getWebhookRoute } from './get-webhook.route.ts';
import { listWebhookDeliveriesRoute } from './list-webhook-deliveries.route.ts';
import { listWebhooksRoute } from './list-webhooks.route.ts';

export function webhookQueryRoutes(deps: QueryDeps): BoundOperation[] {
  return [listWebhooksRoute(deps), getWebhookRoute(deps), listWebhookDeliveriesRoute(deps)];
}
