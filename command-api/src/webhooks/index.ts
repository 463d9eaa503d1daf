import type { BoundOperation } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { createWebhookRoute } from './create-webhook.route.ts';
import { deleteWebhookRoute } from './delete-webhook.route.ts';
import { replayWebhookDeliveryRoute } from './replay-webhook-delivery.route.ts';
import { updateWebhookRoute } from './update-webhook.route.ts';
import type { WebhookCommandDeps } from './webhook-deps.ts';

export type { WebhookCommandDeps } from './webhook-deps.ts';

export function webhookCommandRoutes(deps: CommandDeps, hooks: WebhookCommandDeps): BoundOperation[] {
  return [createWebhookRoute(deps, hooks), updateWebhookRoute(deps, hooks), deleteWebhookRoute(deps), replayWebhookDeliveryRoute(deps)];
}
