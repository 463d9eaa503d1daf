import type { EventStore, GlobalPosition, Logger, Resolve, WebhookTargetPolicy } from '@cairn/platform';
import type { ReadDb } from '@cairn/projections';
import type pg from 'pg';

/** A change of the feed as the deliverer handles it: sent whole, ordered by `position`. */
export type FeedChange = { readonly position: string; readonly kind: string } & Readonly<Record<string, unknown>>;

export type FeedFilters = { readonly collectionId?: string | undefined; readonly assetId?: string | undefined; readonly kinds?: readonly string[] | undefined };

/**
 * The change feed's own page reader (query-api's readChanges), given by whoever wires the
 * workers: the deliverer never judges visibility or maps events itself.
 */
export type ReadFeedPage = (input: {
  readonly caller: { readonly userId: string; readonly isSystemAdmin: boolean };
  readonly after: GlobalPosition;
  readonly limit: number;
  readonly filters: FeedFilters;
  readonly deniedProjectIds: readonly string[];
  /** Events of the feed's types scanned at most (readChanges' scanLimit): 1 reads the change at `after`'s successor only. */
  readonly scanLimit?: number | undefined;
}) => Promise<{ readonly changes: readonly FeedChange[]; readonly next: GlobalPosition; readonly hasMore: boolean }>;

export type WebhookSettings = {
  readonly timeoutMs: number;
  /** Failures in a row that pause a subscription. */
  readonly maxFailures: number;
  /** The wait after the first failure, doubled after each further one, at most an hour. */
  readonly backoffMs: number;
  /** How often the scheduler looks for subscriptions behind the log. */
  readonly pollMs: number;
  /** Deliveries that run at once in one worker process. */
  readonly concurrency: number;
  /** Attempts kept per subscription in the delivery log: a failing receiver or a stream of replays never grows it without end. */
  readonly deliveryLogKept: number;
};

export type WebhookDeliveryDeps = {
  readonly pool: pg.Pool;
  readonly db: ReadDb;
  readonly eventStore: EventStore;
  readonly logger: Logger;
  readonly readFeedPage: ReadFeedPage;
  readonly policy: WebhookTargetPolicy;
  readonly key: Buffer;
  readonly settings: WebhookSettings;
  /** Name resolution for the target check before each POST; the system's resolver unless a test gives another. */
  readonly resolve?: Resolve | undefined;
};
