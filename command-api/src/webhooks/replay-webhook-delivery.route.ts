import { webhooks, type WebhookId } from '@cairn/domain';
import { replayWebhookDelivery } from '@cairn/contract';
import { httpErrors, implement, newId } from '@cairn/platform';
import { findWebhook, findWebhookDelivery, webhookVisibleTo } from '@cairn/projections';
import { awaitReadModels, type CommandDeps } from '../deps.ts';
import { executeStep } from '../run-command.ts';

/** The replay is a job the event records (the job outbox): 202 once it is recorded. */
export const replayWebhookDeliveryRoute = (deps: CommandDeps) =>
  implement(replayWebhookDelivery, async ({ params, context }) => {
    const caller = context.caller;
    if (!caller) throw httpErrors.unauthenticated();
    const id = (params['id'] ?? '') as WebhookId;
    const deliveryId = (params['delivery_id'] ?? '').toLowerCase();
    if (!webhookVisibleTo(await findWebhook(deps.db, id), caller) || !(await findWebhookDelivery(deps.db, id, deliveryId))) throw httpErrors.notFound('Delivery not found.');
    const replayId = newId(context);
    const outcome = await executeStep(deps, context, { decider: webhooks.webhookDecider, stream: webhooks.webhookStream(id), command: { type: 'ReplayWebhookDelivery', id, deliveryId, replayId } });
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    return { status: 202, position: outcome.position };
  });
