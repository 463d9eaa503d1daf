import type { ConsistencyWaiter, EventStore, GlobalPosition, RequestContext } from '@cairn/platform';
import { httpErrors, type CommandMetadata } from '@cairn/platform';
import { projectionsHandling, type ContentRow, type ReadDb, type UploadRow } from '@cairn/projections';
import type { CommandContext, storage } from '@cairn/domain';
import { commitWalOf, encodeConsistencyToken } from '@cairn/platform';
import type { GeoService, RepositoryStores } from '@cairn/platform';
import type { NewUserAllocation } from './storage/default-allocation.ts';
import type { WebhookCommandDeps } from './webhooks/webhook-deps.ts';

export type CommandDeps = {
  readonly eventStore: EventStore;
  readonly db: ReadDb;
  readonly waiter: ConsistencyWaiter;
  readonly consistencyTimeoutMs: number;
  /** The geographic restriction of projects (docs/projects.md). */
  readonly geo?: GeoService | undefined;
  readonly storage: StorageDeps;
  /** Webhook subscriptions (docs/changes.md, "Webhooks"). */
  readonly webhooks: WebhookCommandDeps;
};

/** Content bytes and what is done with them (docs/storage.md). */
export type StorageDeps = {
  readonly stores: RepositoryStores;
  /** The largest upload, apart from the JSON body limit. */
  readonly uploadLimitBytes: number;
  /** An upload whose client sends nothing for this long is ended, its partial bytes removed. */
  readonly idleTimeoutMs?: number | undefined;
  readonly extractionEnabled: boolean;
  /** Extracts a content record's metadata now and records it; the position of that event. */
  readonly extractNow: (contentId: string, context: CommandContext, metadata: CommandMetadata) => Promise<GlobalPosition | null>;
  /** Removes a content record, credits its allocation, then drops its bytes unless another record points at them. */
  readonly removeContent: (content: ContentRow, context: CommandContext, metadata: CommandMetadata) => Promise<GlobalPosition | null>;
  /** What the configuration grants a user on their first upload without an allocation; unset: nothing (docs/storage.md). */
  readonly newUserAllocation?: NewUserAllocation | undefined;
  /** Direct uploads (docs/storage.md "Direct uploads"). */
  readonly uploads: UploadDeps;
};

export type UploadDeps = {
  /** The public base URL: fs part URLs point at this service. */
  readonly publicUrl: string;
  /** Signs and checks the fs part URLs (uploadLinkKey of the server's download secret). */
  readonly linkKey: Buffer;
  readonly expirySeconds: number;
  readonly partUrlTtlSeconds: number;
  /** At most this many open uploads per allocation: each holds a directory or an S3 multipart upload, rows and a job. */
  readonly maxOpenUploads: number;
  /** Ends an open upload: parts removed (and the assembled object, when `assembled`), reservation released. */
  readonly endUpload: (upload: UploadRow, reason: storage.UploadEndReason, context: CommandContext, metadata: CommandMetadata, options?: { assembled?: boolean }) => Promise<GlobalPosition | null>;
};

export function commandContext(context: RequestContext): CommandContext {
  const caller = context.caller;
  return { actor: { userId: caller?.userId ?? null, isSystemAdmin: caller?.isSystemAdmin ?? false }, now: context.now };
}

/** The HTTP request is what caused the command, so it is also the events' causation. */
export function commandMetadata(context: RequestContext): CommandMetadata {
  return { requestId: context.requestId, correlationId: context.correlationId, causationId: context.requestId, idempotencyKey: context.idempotency?.key };
}

/**
 * DECISIONS.md 5: a write answers only once the read models that show it have applied it,
 * so its response and every later read reflect it. If they lag past the bound, the write
 * stands and the client gets 503 with the token to read it back with.
 */
export async function awaitReadModels(deps: CommandDeps, position: GlobalPosition | null, eventTypes: readonly string[]): Promise<void> {
  if (!position) return;
  const ok = await deps.waiter.waitFor(position, projectionsHandling(eventTypes), deps.consistencyTimeoutMs, { committed: true });
  if (!ok) {
    const error = httpErrors.unavailable('read_model_lagging', 'The change was saved, but the read models have not caught up yet; read it back with the X-Consistency-Token header.');
    error.headers['X-Consistency-Token'] = encodeConsistencyToken({ position, walLsn: commitWalOf(position) });
    throw error;
  }
}
