import { decodePosition, openSecret, timeOrderedId, type GlobalPosition } from '@cairn/platform';
import { findWebhook, findWebhookDelivery } from '@cairn/projections';
import { deliveryBody, ownerOf } from './deliver-webhook.ts';
import { recordAttempt, sendDelivery } from './send-delivery.ts';
import type { WebhookDeliveryDeps } from './webhook-deps.ts';

/** The largest minor part a position has (the PostgreSQL store's `(xid, maxMinor)`). */
const maxMinor = (1n << 63n) - 1n;

/** The position just before this one: reading the log after it reads this position's event first. */
const justBefore = (p: GlobalPosition): GlobalPosition => (p.minor > 0n ? { major: p.major, minor: p.minor - 1n } : { major: p.major - 1n, minor: maxMinor });

/**
 * One run of `webhook-replay`: the logged change sent again to the subscription's URL now,
 * with a fresh signature and `Cairn-Replay-Of`, **if its owner may still see it**: the
 * change is read again through the feed at its position, as the owner now (a replay is a
 * delivery, judged when it is sent like every other). A change the owner may no longer see
 * (a revoked grant, a resource deleted since, a deactivated owner) is not sent; the refusal
 * is logged. A failure to send propagates, so the job's retries apply; a replay neither
 * counts towards pausing the subscription nor moves its position.
 */
export async function replayDelivery(deps: WebhookDeliveryDeps, payload: { webhookId: string; deliveryId: string }): Promise<void> {
  const webhook = await findWebhook(deps.db, payload.webhookId);
  const original = webhook ? await findWebhookDelivery(deps.db, webhook.id, payload.deliveryId) : undefined;
  const position = original ? decodePosition(original.position) : null;
  if (!webhook || !original || !position) return;
  const owner = await ownerOf(deps, webhook);
  const page = owner
    ? await deps.readFeedPage({ caller: owner.caller, after: justBefore(position), limit: 1, filters: {}, deniedProjectIds: owner.denied, scanLimit: 1 })
    : null;
  const change = page?.changes[0];
  const delivery = { position: original.position, kind: original.change_kind, attempt: 1, replayOf: original.id };
  if (change?.position !== original.position) {
    const error = owner ? 'Not sent: the subscription’s owner may no longer see this change.' : 'Not sent: the owner is no longer an active user.';
    await recordAttempt(deps, webhook.id, timeOrderedId(), { ...delivery, body: original.body }, { ok: false, status: null, error, durationMs: 0 });
    return;
  }
  const { outcome } = await sendDelivery(deps, { id: webhook.id, url: webhook.url, secret: openSecret(deps.key, webhook.sealed_secret) }, { ...delivery, body: deliveryBody(webhook.id, change) });
  if (!outcome.ok) throw new Error(outcome.error ?? 'The replay failed.');
}
