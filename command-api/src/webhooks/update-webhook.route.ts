import { webhooks, type WebhookId } from '@cairn/domain';
import { updateWebhook } from '@cairn/contract';
import { httpErrors, implement, sealSecret } from '@cairn/platform';
import { findWebhook, presentWebhook, webhookVisibleTo } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { checkedFilters, checkedUrl, type WebhookCommandDeps } from './webhook-deps.ts';

export const updateWebhookRoute = (deps: CommandDeps, hooks: WebhookCommandDeps) =>
  implement(updateWebhook, async ({ params, body, context }) => {
    const caller = context.caller;
    if (!caller) throw httpErrors.unauthenticated();
    const id = (params['id'] ?? '') as WebhookId;
    const current = await findWebhook(deps.db, id);
    // Before the URL is resolved or the filters read: a stranger learns nothing of either.
    if (!webhookVisibleTo(current, caller)) throw httpErrors.notFound('Webhook not found.');
    const filtersSent = body.collection_id !== undefined || body.asset_id !== undefined || body.kinds !== undefined;
    const filters = filtersSent
      ? await checkedFilters(deps.db, caller, {
          collectionId: body.collection_id === undefined ? current.collection_id : (body.collection_id?.toLowerCase() ?? null),
          assetId: body.asset_id === undefined ? current.asset_id : (body.asset_id?.toLowerCase() ?? null),
          kinds: body.kinds === undefined ? current.kinds : [...new Set(body.kinds)],
        })
      : undefined;
    const command: webhooks.ChangeWebhook = {
      type: 'ChangeWebhook',
      id,
      url: body.url === undefined ? undefined : await checkedUrl(hooks, body.url),
      filters,
      sealedSecret: body.secret === undefined ? undefined : sealSecret(hooks.key, body.secret),
      status: body.status,
    };
    return runCommand(deps, context, { decider: webhooks.webhookDecider, stream: webhooks.webhookStream(id), command }, { status: 200, read: () => findWebhook(deps.db, id), present: presentWebhook });
  });
