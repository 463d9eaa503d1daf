import { httpErrors, WebhookTargetRefused, checkWebhookTarget, type Resolve, type WebhookTargetPolicy } from '@cairn/platform';
import { assetStanding, collectionStanding, type ReadDb } from '@cairn/projections';
import { permissionBits, type webhooks } from '@cairn/domain';

/** What the webhook routes need beyond the other writes': where deliveries may go, and the key that seals secrets. */
export type WebhookCommandDeps = {
  readonly policy: WebhookTargetPolicy;
  readonly key: Buffer;
  /** Subscriptions one user may hold (CAIRN_WEBHOOK_MAX_PER_OWNER): past it, a creation is refused (409). */
  readonly maxPerOwner: number;
  /** Name resolution for the target check; the system's resolver unless a test gives another. */
  readonly resolve?: Resolve | undefined;
};

/** The target is checked when it is given (and again before every delivery): a refusal is a 400 on `url`. */
export async function checkedUrl(deps: WebhookCommandDeps, url: string): Promise<string> {
  try {
    return (await checkWebhookTarget(url, deps.policy, deps.resolve)).url.toString();
  } catch (error) {
    if (error instanceof WebhookTargetRefused) throw httpErrors.validation({ url: [error.message] }, 'Webhooks may not be sent to this URL.');
    throw error;
  }
}

/** A collection or asset the filters name must be one the caller may see (DECISIONS.md 1: unknown and hidden alike). */
export async function checkedFilters(db: ReadDb, viewer: { userId: string; isSystemAdmin: boolean }, filters: webhooks.WebhookFilters): Promise<webhooks.WebhookFilters> {
  const read = permissionBits.READ_METADATA;
  if (filters.collectionId !== null) {
    const { collection } = await collectionStanding(db, filters.collectionId, viewer);
    if (!collection || (collection.effective_flags & read) === 0) throw httpErrors.unknownReference('collection_id');
  }
  if (filters.assetId !== null) {
    const { asset } = await assetStanding(db, filters.assetId, viewer);
    if (!asset || (asset.flags & read) === 0) throw httpErrors.unknownReference('asset_id');
  }
  return filters;
}
