import type { DomainEvent } from '../shared/events.ts';
import type { WebhookId } from '../shared/ids.ts';

/** The changes a subscription follows: the filters of GET /api/changes/. */
export type WebhookFilters = {
  readonly collectionId: string | null;
  readonly assetId: string | null;
  /** Resource kinds; empty: every kind. */
  readonly kinds: readonly string[];
};

export type WebhookCreated = DomainEvent<
  'WebhookCreated',
  {
    readonly id: WebhookId;
    readonly ownerId: string;
    readonly url: string;
    readonly filters: WebhookFilters;
    /** Sealed with the server's webhook key before the command is made: never in clear in the log. */
    readonly sealedSecret: string;
    /** The encoded log position after which changes are delivered: the head when it was created. */
    readonly startAfter: string;
  }
>;

export type WebhookChanged = DomainEvent<
  'WebhookChanged',
  { readonly id: WebhookId; readonly changes: { readonly url?: string; readonly filters?: WebhookFilters; readonly sealedSecret?: string } }
>;

/** `reason`: why deliveries stopped (the receiver's last failure, or the owner's request). */
export type WebhookPaused = DomainEvent<'WebhookPaused', { readonly id: WebhookId; readonly reason: string }>;

export type WebhookResumed = DomainEvent<'WebhookResumed', { readonly id: WebhookId }>;

export type WebhookDeleted = DomainEvent<'WebhookDeleted', { readonly id: WebhookId }>;

/** The owner asked for one logged delivery to be sent again: the job outbox records the job. */
export type WebhookReplayRequested = DomainEvent<'WebhookReplayRequested', { readonly id: WebhookId; readonly deliveryId: string; readonly replayId: string }>;

export type WebhookEvent = WebhookCreated | WebhookChanged | WebhookPaused | WebhookResumed | WebhookDeleted | WebhookReplayRequested;

export const webhookEventTypes = ['WebhookCreated', 'WebhookChanged', 'WebhookPaused', 'WebhookResumed', 'WebhookDeleted', 'WebhookReplayRequested'] as const;
