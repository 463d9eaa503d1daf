import { webhooks, type WebhookId } from '@cairn/domain';
import { createWebhook } from '@cairn/contract';
import { encodePosition, generateWebhookSecret, httpErrors, implement, newId, openSecret, sealSecret } from '@cairn/platform';
import { findWebhook, presentWebhook, webhookRead } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { checkedFilters, checkedUrl, type WebhookCommandDeps } from './webhook-deps.ts';

export const createWebhookRoute = (deps: CommandDeps, hooks: WebhookCommandDeps) =>
  implement(createWebhook, async ({ body, context }) => {
    const caller = context.caller;
    if (!caller) throw httpErrors.unauthenticated();
    // Each subscription costs the scheduler a look and a read of the log per run: a user holds a bounded number.
    const held = await deps.db.selectFrom('webhooks').select((eb) => eb.fn.countAll<string>().as('n')).where('owner_id', '=', caller.userId).executeTakeFirst();
    if (Number(held?.n ?? 0) >= hooks.maxPerOwner) throw httpErrors.conflict('webhook_limit_reached', `A user may hold at most ${hooks.maxPerOwner} webhook subscriptions; delete one first.`);
    const url = await checkedUrl(hooks, body.url);
    const filters = await checkedFilters(deps.db, caller, { collectionId: body.collection_id?.toLowerCase() ?? null, assetId: body.asset_id?.toLowerCase() ?? null, kinds: [...new Set(body.kinds ?? [])] });
    const id = newId(context) as WebhookId;
    // From now on: the changes after the log's head as it is read here.
    const startAfter = encodePosition(await deps.eventStore.headPosition());
    const sealedSecret = sealSecret(hooks.key, body.secret ?? generateWebhookSecret());
    return runCommand(
      deps,
      context,
      { decider: webhooks.webhookDecider, stream: webhooks.webhookStream(id), command: { type: 'CreateWebhook', id, url, filters, sealedSecret, startAfter }, newStream: true },
      {
        status: 201,
        read: () => findWebhook(deps.db, id),
        readAfterAppend: webhookRead(deps.db, id),
        // From the stored row, so that a retry under the same Idempotency-Key answers the secret the first attempt stored.
        present: (row) => ({ ...presentWebhook(row), secret: openSecret(hooks.key, row.sealed_secret) }),
        headers: { Location: `/api/webhooks/${id}/` },
      },
    );
  });
