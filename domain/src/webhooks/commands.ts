import type { WebhookId } from '../shared/ids.ts';
import type { WebhookFilters } from './events.ts';

export type CreateWebhook = {
  readonly type: 'CreateWebhook';
  readonly id: WebhookId;
  readonly url: string;
  readonly filters: WebhookFilters;
  readonly sealedSecret: string;
  readonly startAfter: string;
};

/** `status`: `paused` by the owner, `active` resumes a paused subscription. */
export type ChangeWebhook = {
  readonly type: 'ChangeWebhook';
  readonly id: WebhookId;
  readonly url?: string | undefined;
  readonly filters?: WebhookFilters | undefined;
  readonly sealedSecret?: string | undefined;
  readonly status?: 'active' | 'paused' | undefined;
};

/** Deliveries stopped: by the deliverer after too many failures in a row. */
export type PauseWebhook = { readonly type: 'PauseWebhook'; readonly id: WebhookId; readonly reason: string };

export type DeleteWebhook = { readonly type: 'DeleteWebhook'; readonly id: WebhookId };

export type ReplayWebhookDelivery = { readonly type: 'ReplayWebhookDelivery'; readonly id: WebhookId; readonly deliveryId: string; readonly replayId: string };

export type WebhookCommand = CreateWebhook | ChangeWebhook | PauseWebhook | DeleteWebhook | ReplayWebhookDelivery;
