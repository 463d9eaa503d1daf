import type { JobHandlersOf } from '../registry.ts';
import type { JobLane } from '../start-workers.ts';
import { deliverWebhook } from './deliver-webhook.ts';
import { replayDelivery } from './replay-delivery.ts';
import type { WebhookDeliveryDeps } from './webhook-deps.ts';
import { startWebhookScheduler } from './webhook-scheduler.ts';

export type { FeedChange, ReadFeedPage, WebhookDeliveryDeps, WebhookSettings } from './webhook-deps.ts';
export { deliveryHeaders, sendDelivery } from './send-delivery.ts';

export type WebhookJobs = {
  readonly handlers: JobHandlersOf<'webhook-deliver' | 'webhook-replay'>;
  /** Runs beside the workers: schedules deliveries for subscriptions behind the log. */
  startScheduler(): { stop(): Promise<void> };
  /** Deliveries on slots of their own (CAIRN_WEBHOOK_CONCURRENCY): a slow receiver holds one of them, not a content job's. */
  readonly lane: JobLane;
};

export function createWebhookJobs(deps: WebhookDeliveryDeps): WebhookJobs {
  return {
    handlers: {
      'webhook-deliver': ({ webhookId }, run) => deliverWebhook(deps, webhookId, run),
      'webhook-replay': (payload) => replayDelivery(deps, payload),
    },
    startScheduler: () => startWebhookScheduler(deps),
    lane: { name: 'webhooks', jobs: ['webhook-deliver', 'webhook-replay'], concurrency: deps.settings.concurrency },
  };
}
