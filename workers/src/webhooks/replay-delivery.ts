import { openSecret } from '@cairn/platform';
import { findWebhook, findWebhookDelivery } from '@cairn/projections';
import { sendDelivery } from './send-delivery.ts';
import type { WebhookDeliveryDeps } from './webhook-deps.ts';

/**
 * One run of `webhook-replay`: the logged body sent again, as it was (the owner saw it
 * then, and reads it in the log anyway), to the subscription's URL now, with a fresh
 * signature and `Cairn-Replay-Of`. A failure propagates, so the job's retries apply; it
 * does not count towards pausing the subscription, nor move its position.
 */
export async function replayDelivery(deps: WebhookDeliveryDeps, payload: { webhookId: string; deliveryId: string }): Promise<void> {
  const webhook = await findWebhook(deps.db, payload.webhookId);
  const original = webhook ? await findWebhookDelivery(deps.db, webhook.id, payload.deliveryId) : undefined;
  if (!webhook || !original) return;
  const { outcome } = await sendDelivery(deps, { id: webhook.id, url: webhook.url, secret: openSecret(deps.key, webhook.sealed_secret) }, { position: original.position, kind: original.change_kind, body: original.body, attempt: 1, replayOf: original.id });
  if (!outcome.ok) throw new Error(outcome.error ?? 'The replay failed.');
}
