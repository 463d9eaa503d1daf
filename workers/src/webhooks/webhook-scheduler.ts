import { comparePositions, decodePosition, inTransaction } from '@cairn/platform';
import type { WebhookDeliveryDeps } from './webhook-deps.ts';

type Candidate = { id: string; position: string; run_after: Date };

/**
 * Starts a `webhook-deliver` job for each active subscription that is behind the log's head
 * and has none pending: one at a time per subscription, which keeps its deliveries in log
 * order (so in order per resource). A failed subscription's next job waits its back-off.
 * Several processes may run it: the progress row's lock lets one schedule at a time.
 */
export function startWebhookScheduler(deps: WebhookDeliveryDeps): { stop(): Promise<void> } {
  let stopping = false;
  let wake: (() => void) | null = null;

  async function schedule(candidate: Candidate): Promise<void> {
    // Returning early commits only the progress row, which the next run would make anyway.
    await inTransaction(deps.pool, async (client) => {
      await client.query('insert into webhook_progress (webhook_id, last_position) values ($1, $2) on conflict do nothing', [candidate.id, candidate.position]);
      const locked = await client.query<{ runs: string }>('select runs from webhook_progress where webhook_id = $1 for update skip locked', [candidate.id]);
      const pending = await client.query("select 1 from job_outbox where subject_id = $1 and name = 'webhook-deliver'", [candidate.id]);
      if (locked.rows.length === 0 || pending.rows.length > 0) return;
      // A new id per run: BullMQ keeps finished jobs' ids for a while and would ignore a repeated one.
      const { rows } = await client.query<{ runs: string }>('update webhook_progress set runs = runs + 1 where webhook_id = $1 returning runs', [candidate.id]);
      await client.query(
        `insert into job_outbox (id, name, payload, subject_id, created_at, run_after) values ($1, 'webhook-deliver', $2, $3, now(), greatest(now(), $4))`,
        [`webhook-deliver.${candidate.id}.${rows[0]?.runs ?? '0'}`, { webhookId: candidate.id }, candidate.id, candidate.run_after],
      );
    });
  }

  async function tick(): Promise<void> {
    const head = await deps.eventStore.headPosition();
    const { rows } = await deps.pool.query<Candidate>(
      `select w.id, coalesce(p.last_position, w.start_after) as position, coalesce(p.next_attempt_at, now()) as run_after
       from webhooks w left join webhook_progress p on p.webhook_id = w.id
       where w.status = 'active' and not exists (select 1 from job_outbox j where j.subject_id = w.id and j.name = 'webhook-deliver')`,
    );
    for (const candidate of rows) {
      const position = decodePosition(candidate.position);
      if (position && comparePositions(position, head) < 0) await schedule(candidate);
    }
  }

  const loop = (async () => {
    while (!stopping) {
      try {
        await tick();
      } catch (error) {
        deps.logger.warn('webhook scheduling failed', { error: (error as Error).message });
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deps.settings.pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  return {
    async stop() {
      stopping = true;
      wake?.();
      await loop;
    },
  };
}
