import { checkWebhookTarget, postWebhook, signatureHeader, signWebhook, timeOrderedId, WebhookTargetRefused, type PostOutcome } from '@cairn/platform';
import type { WebhookDeliveryDeps } from './webhook-deps.ts';

export type DeliveryToSend = { readonly position: string; readonly kind: string; readonly body: string; readonly attempt: number; readonly replayOf?: string | undefined };

export type DeliveryAttempt = { readonly id: string; readonly outcome: PostOutcome };

/** What a receiver reads besides the body (docs/changes.md, "Webhooks"). */
export const deliveryHeaders = { webhook: 'Cairn-Webhook-Id', delivery: 'Cairn-Delivery-Id', position: 'Cairn-Change-Position', replayOf: 'Cairn-Replay-Of' } as const;

/** Largest answer read from a receiver: only its status matters. */
const maxResponseBytes = 64 * 1024;

/**
 * One signed POST of one body, logged. The target is checked again first (its name may
 * resolve elsewhere now) and the connection goes to the address checked.
 */
export async function sendDelivery(
  deps: WebhookDeliveryDeps,
  webhook: { readonly id: string; readonly url: string; readonly secret: string },
  delivery: DeliveryToSend,
): Promise<DeliveryAttempt> {
  const id = timeOrderedId();
  const started = Date.now();
  let outcome: PostOutcome;
  try {
    const target = await checkWebhookTarget(webhook.url, deps.policy, deps.resolve);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      [signatureHeader]: signWebhook(webhook.secret, timestamp, delivery.body),
      [deliveryHeaders.webhook]: webhook.id,
      [deliveryHeaders.delivery]: id,
      [deliveryHeaders.position]: delivery.position,
      ...(delivery.replayOf ? { [deliveryHeaders.replayOf]: delivery.replayOf } : {}),
    };
    outcome = await postWebhook(target, headers, delivery.body, { timeoutMs: deps.settings.timeoutMs, maxResponseBytes });
  } catch (error) {
    if (!(error instanceof WebhookTargetRefused)) throw error;
    outcome = { ok: false, status: null, error: error.message, durationMs: Date.now() - started };
  }
  await recordAttempt(deps, webhook.id, id, delivery, outcome);
  return { id, outcome };
}

/**
 * One attempt into the delivery log the owner reads, and the oldest beyond the newest
 * `deliveryLogKept` dropped in the same statement (its delete does not see the row it
 * inserts: it keeps one fewer of the older ones).
 */
export async function recordAttempt(deps: WebhookDeliveryDeps, webhookId: string, id: string, delivery: DeliveryToSend, outcome: PostOutcome): Promise<void> {
  await deps.pool.query(
    `with added as (
       insert into webhook_deliveries (id, webhook_id, position, change_kind, body, attempt, replay_of, outcome, status_code, error, duration_ms, attempted_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now()) returning id
     )
     delete from webhook_deliveries where id in (
       select d.id from webhook_deliveries d where d.webhook_id = $2 order by d.attempted_at desc, d.id desc offset $12)`,
    [id, webhookId, delivery.position, delivery.kind, delivery.body, delivery.attempt, delivery.replayOf ?? null, outcome.ok ? 'delivered' : 'failed', outcome.status, outcome.error, outcome.durationMs, Math.max(0, deps.settings.deliveryLogKept - 1)],
  );
}
