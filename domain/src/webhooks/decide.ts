import type { CommandContext } from '../shared/command-context.ts';
import { assertNever, type Decider } from '../shared/decider.ts';
import { forbidden } from '../shared/errors.ts';
import type { WebhookId } from '../shared/ids.ts';
import type { WebhookCommand } from './commands.ts';
import { webhookErrors } from './errors.ts';
import type { WebhookChanged, WebhookEvent } from './events.ts';
import { evolve, initialState, type WebhookState } from './state.ts';

type Live = Extract<WebhookState, { status: 'active' | 'paused' }>;

/** Only the owner and system administrators (and the deliverer, as the operator) reach a subscription. */
function reachable(state: WebhookState, context: CommandContext): Live {
  if (state.status !== 'active' && state.status !== 'paused') throw webhookErrors.notFound();
  if (!context.actor.isSystemAdmin && context.actor.userId !== state.ownerId) throw webhookErrors.notFound();
  return state;
}

export function decide(command: WebhookCommand, state: WebhookState, context: CommandContext): readonly WebhookEvent[] {
  switch (command.type) {
    case 'CreateWebhook': {
      if (state.status !== 'absent') throw webhookErrors.alreadyExists();
      // A subscription delivers what its owner may see: the operator has no such view.
      const ownerId = context.actor.userId;
      if (ownerId === null) throw forbidden('permission_denied', 'A webhook belongs to a user.');
      const { id, url, filters, sealedSecret, startAfter } = command;
      return [{ type: 'WebhookCreated', data: { id, ownerId, url, filters, sealedSecret, startAfter } }];
    }
    case 'ChangeWebhook': {
      const live = reachable(state, context);
      const changes: { -readonly [K in keyof WebhookChanged['data']['changes']]: WebhookChanged['data']['changes'][K] } = {};
      if (command.url !== undefined && command.url !== live.url) changes.url = command.url;
      if (command.filters !== undefined && JSON.stringify(command.filters) !== JSON.stringify(live.filters)) changes.filters = command.filters;
      if (command.sealedSecret !== undefined) changes.sealedSecret = command.sealedSecret;
      const events: WebhookEvent[] = [];
      if (Object.keys(changes).length > 0) events.push({ type: 'WebhookChanged', data: { id: command.id, changes } });
      if (command.status === 'paused' && live.status === 'active') events.push({ type: 'WebhookPaused', data: { id: command.id, reason: 'Paused by its owner.' } });
      if (command.status === 'active' && live.status === 'paused') events.push({ type: 'WebhookResumed', data: { id: command.id } });
      return events;
    }
    case 'PauseWebhook': {
      const live = reachable(state, context);
      // A pause that lost a race with the owner's own pause or a deletion records nothing.
      return live.status === 'active' ? [{ type: 'WebhookPaused', data: { id: command.id, reason: command.reason } }] : [];
    }
    case 'DeleteWebhook':
      reachable(state, context);
      return [{ type: 'WebhookDeleted', data: { id: command.id } }];
    case 'ReplayWebhookDelivery':
      reachable(state, context);
      return [{ type: 'WebhookReplayRequested', data: { id: command.id, deliveryId: command.deliveryId, replayId: command.replayId } }];
    default:
      return assertNever(command);
  }
}

export const webhookDecider: Decider<WebhookCommand, WebhookEvent, WebhookState> = { initialState, evolve, decide };

export const webhookStream = (id: WebhookId | string) => `webhook-${id}`;
