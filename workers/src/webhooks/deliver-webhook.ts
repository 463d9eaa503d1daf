import { webhooks as hooks, operatorActor, type WebhookId } from '@cairn/domain';
import { comparePositions, decodePosition, encodePosition, executeCommand, openSecret, type GlobalPosition } from '@cairn/platform';
import { findWebhook, restrictedProjects, type WebhookRow } from '@cairn/projections';
import { jobMetadata } from '../content/content-deps.ts';
import type { JobRun } from '../jobs.ts';
import { sendDelivery } from './send-delivery.ts';
import type { FeedChange, WebhookDeliveryDeps } from './webhook-deps.ts';
import { advance, deferIdle, progressOf, recordFailure } from './webhook-progress.ts';

/** Changes read per page: small, so that a grant revoked mid-run stops the flow within a few deliveries. */
const pageSize = 20;
/**
 * A run hands its worker back after this long (plus the POST under way); the scheduler
 * starts the next run where it stopped, behind the jobs already waiting: a slow receiver
 * holds a worker for about this long at a time, not for its whole backlog.
 */
const runBudgetMs = 2_000;
/** How long a run that could read nothing new waits before the next (see deferIdle). */
const idleWaitMs = 500;

export class WebhookDeliveryFailed extends Error {
  override name = 'WebhookDeliveryFailed';
}

/** The body a receiver gets: the change as the owner's feed shows it, and which subscription sent it. */
export const deliveryBody = (webhookId: string, change: FeedChange): string => JSON.stringify({ webhook_id: webhookId, change });

async function pause(deps: WebhookDeliveryDeps, id: string, reason: string, jobId: string): Promise<void> {
  await executeCommand(deps.eventStore, hooks.webhookDecider, hooks.webhookStream(id), { type: 'PauseWebhook', id: id as WebhookId, reason }, { actor: operatorActor, now: new Date().toISOString() }, jobMetadata(jobId));
}

/** The owner as the feed judges them now: gone or deactivated, nothing more is theirs to see. */
export async function ownerOf(deps: WebhookDeliveryDeps, row: WebhookRow) {
  const owner = await deps.db.selectFrom('users').select(['id', 'is_active', 'is_system_admin']).where('id', '=', row.owner_id).executeTakeFirst();
  if (!owner?.is_active) return null;
  // No request, so no client address to judge a project's geographic restriction on: a
  // subscription gets nothing of a restricted project (system administrators excepted).
  const denied = owner.is_system_admin ? [] : (await restrictedProjects(deps.db, owner.id)).map((p) => p.id);
  return { caller: { userId: owner.id, isSystemAdmin: owner.is_system_admin }, denied };
}

/**
 * One run of `webhook-deliver` (docs/changes.md, "Webhooks"): the changes after the
 * subscription's position, read through the feed as its owner may see them now, POSTed
 * one at a time in log order; the position moves after each 2xx (at least once: a crash
 * between the two sends that change again). A failure is logged and counted; the run
 * throws so that the job's retries and back-off apply, and the subscription is paused
 * once `maxFailures` failed in a row.
 */
export async function deliverWebhook(deps: WebhookDeliveryDeps, webhookId: string, run: JobRun): Promise<void> {
  const row = await findWebhook(deps.db, webhookId);
  if (row?.status !== 'active') return;
  const owner = await ownerOf(deps, row);
  if (!owner) {
    await pause(deps, row.id, 'The owner is no longer an active user.', run.id);
    return;
  }
  const progress = await progressOf(deps.pool, row.id, row.start_after);
  let failures = progress.consecutiveFailures;
  let after: GlobalPosition = decodePosition(progress.lastPosition) ?? { major: 0n, minor: 0n };
  const secret = openSecret(deps.key, row.sealed_secret);
  const filters = { collectionId: row.collection_id ?? undefined, assetId: row.asset_id ?? undefined, kinds: row.kinds.length > 0 ? row.kinds : undefined };
  const deadline = Date.now() + runBudgetMs;
  for (;;) {
    const page = await deps.readFeedPage({ caller: owner.caller, after, limit: pageSize, filters, deniedProjectIds: owner.denied });
    for (const change of page.changes) {
      const { outcome } = await sendDelivery(deps, { id: row.id, url: row.url, secret }, { position: change.position, kind: change.kind, body: deliveryBody(row.id, change), attempt: failures + 1 });
      if (!outcome.ok) {
        const reason = outcome.error ?? 'The delivery failed.';
        failures = await recordFailure(deps.pool, row.id, reason, deps.settings.backoffMs);
        if (failures >= deps.settings.maxFailures) {
          await pause(deps, row.id, `${failures} deliveries failed in a row; the last: ${reason}`, run.id);
          return;
        }
        throw new WebhookDeliveryFailed(reason);
      }
      failures = 0;
      await advance(deps.pool, row.id, change.position);
      if (Date.now() > deadline) return;
    }
    if (page.changes.length === 0 && comparePositions(page.next, after) <= 0) {
      await deferIdle(deps.pool, row.id, idleWaitMs);
      return;
    }
    // Past what was scanned, whether or not any of it was the owner's to see.
    const encodedNext = encodePosition(page.next);
    if (page.changes.length === 0 || page.changes.at(-1)?.position !== encodedNext) await advance(deps.pool, row.id, encodedNext);
    after = page.next;
    if (!page.hasMore || Date.now() > deadline) return;
  }
}
