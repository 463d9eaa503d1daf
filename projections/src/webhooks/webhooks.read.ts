import { namedStatement } from '../prepared-statements.ts';
import type { Selectable } from 'kysely';
import type { ReadDb, ReadModelTables } from '../schema.ts';

/** A row as the read model holds it (schema.ts). */
export type WebhookRow = Selectable<ReadModelTables['webhooks']>;

const byId = (db: ReadDb, id: string) => db.selectFrom('webhooks').selectAll().where('id', '=', id);

export async function findWebhook(db: ReadDb, id: string): Promise<WebhookRow | undefined> {
  return byId(db, id).executeTakeFirst();
}

/** The same read as a statement an append can run in its round trip. */
export function webhookRead(db: ReadDb, id: string) {
  return { statement: namedStatement(byId(db, id).compile()), fromRows: (rows: readonly Record<string, unknown>[]) => rows[0] as WebhookRow | undefined };
}

/** A caller's own subscriptions; every one for a system administrator. Oldest first. */
export async function listWebhooks(db: ReadDb, viewer: { userId: string; isSystemAdmin: boolean }): Promise<WebhookRow[]> {
  let query = db.selectFrom('webhooks').selectAll();
  if (!viewer.isSystemAdmin) query = query.where('owner_id', '=', viewer.userId);
  return query.orderBy('created_at').orderBy('id').execute();
}

/** Only the owner and system administrators see a subscription; anyone else gets what an unknown id gets. */
export function webhookVisibleTo(row: WebhookRow | undefined, viewer: { userId: string; isSystemAdmin: boolean }): row is WebhookRow {
  return row !== undefined && (viewer.isSystemAdmin || row.owner_id === viewer.userId);
}

/** The resource both services answer: never its secret. */
export function presentWebhook(row: WebhookRow) {
  return {
    id: row.id,
    owner_id: row.owner_id,
    url: row.url,
    collection_id: row.collection_id,
    asset_id: row.asset_id,
    kinds: row.kinds,
    status: row.status as 'active' | 'paused',
    paused_reason: row.paused_reason,
    paused_at: row.paused_at ? row.paused_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
