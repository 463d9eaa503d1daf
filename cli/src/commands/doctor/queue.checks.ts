import { inspectQueue } from '@cairn/workers';
import type { Resources } from '../../runtime/resources.ts';
import { fail, messageOf, ok, skipped, warn, type Check } from './check.ts';

/** Redis and the BullMQ queue when REDIS_URL is set; otherwise the outbox that runs jobs in process. */
export async function queueChecks(resources: Resources, timeoutMs: number): Promise<Check[]> {
  const { redisUrl, jobs } = resources.config;
  if (!redisUrl) {
    const { rows } = await resources.pool.query<{ waiting: number; failing: number }>(
      'select count(*)::int as waiting, count(*) filter (where last_error is not null)::int as failing from job_outbox where relayed_at is null',
    );
    const outbox = rows[0] ?? { waiting: 0, failing: 0 };
    return [skipped('redis', `REDIS_URL unset: jobs run in process from the outbox (${outbox.waiting} waiting, ${outbox.failing} retrying after an error)`)];
  }
  try {
    const health = await inspectQueue(redisUrl, resources.pool, jobs.queueName, timeoutMs);
    const counts = Object.entries(health.counts).map(([state, n]) => `${n} ${state}`).join(', ');
    const checks = [ok('redis', `Redis ${health.redisVersion}`)];
    checks.push(
      (health.counts['failed'] ?? 0) > 0
        ? warn('job queue', `${health.queueName}: ${counts}`, 'look at the failed jobs (their errors are in the worker log); they stay failed until retried')
        : ok('job queue', `${health.queueName}: ${counts}`),
    );
    return checks;
  } catch (error) {
    return [fail('redis', messageOf(error), 'check REDIS_URL and that Redis runs and accepts this host')];
  }
}
