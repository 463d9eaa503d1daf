import { webhooks, type WebhookId } from '@cairn/domain';
import { deleteWebhook } from '@cairn/contract';
import { implement } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';

export const deleteWebhookRoute = (deps: CommandDeps) =>
  implement(deleteWebhook, async ({ params, context }) => {
    const id = (params['id'] ?? '') as WebhookId;
    return runCommand(deps, context, { decider: webhooks.webhookDecider, stream: webhooks.webhookStream(id), command: { type: 'DeleteWebhook', id } }, { status: 204 });
  });
