import type { Selectable } from 'kysely';
import type { ReadDb, ReadModelTables } from '../schema.ts';

/** A row as the read model holds it (schema.ts). */
export type WebhookDeliveryRow = Selectable<ReadModelTables['webhook_deliveries']>;

/** The newest attempts first. */
export async function listWebhookDeliveries(db: ReadDb, webhookId: string, limit: number): Promise<WebhookDeliveryRow[]> {
  return db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).orderBy('attempted_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function findWebhookDelivery(db: ReadDb, webhookId: string, id: string): Promise<WebhookDeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).where('id', '=', id).executeTakeFirst();
}

/** One attempt as the owner reads it: the body as it was sent (what the owner could see then). */
export function presentWebhookDelivery(row: WebhookDeliveryRow) {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    position: row.position,
    change_kind: row.change_kind,
    attempt: row.attempt,
    replay_of: row.replay_of,
    outcome: row.outcome as 'delivered' | 'failed',
    status_code: row.status_code,
    error: row.error,
    duration_ms: row.duration_ms,
    attempted_at: row.attempted_at.toISOString(),
    body: JSON.parse(row.body) as unknown,
  };
}
