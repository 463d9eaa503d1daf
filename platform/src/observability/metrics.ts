import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's metrics (docs/observability.md), in a registry of its own: several
 * services in one process (the tests) never share or double-register one.
 */
export type Metrics = {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly appendedEvents: Counter<'type'>;
  readonly consistencyWaits: Counter<'outcome'>;
  readonly jobRuns: Counter<'job' | 'outcome'>;
  readonly poolWaitsRanOut: Counter<'pool' | 'outcome'>;
  /** Registers a gauge whose value is read when the metrics are scraped. */
  gauge(name: string, help: string, labels: readonly string[], collect: (set: (labels: Record<string, string>, value: number) => void) => Promise<void>): void;
};

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'cairn_' });
  return {
    registry,
    httpRequests: new Counter({ name: 'cairn_http_requests_total', help: 'HTTP requests answered, by route and status.', labelNames: ['method', 'route', 'status'], registers: [registry] }),
    httpDuration: new Histogram({
      name: 'cairn_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by route and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    appendedEvents: new Counter({ name: 'cairn_events_appended_total', help: 'Events appended to the log by this process, by type.', labelNames: ['type'], registers: [registry] }),
    consistencyWaits: new Counter({ name: 'cairn_consistency_waits_total', help: 'Waits for read models to reach a write (DECISIONS.md 5), by outcome (reached, timeout).', labelNames: ['outcome'], registers: [registry] }),
    jobRuns: new Counter({ name: 'cairn_job_runs_total', help: 'Background job runs, by job and outcome (succeeded, failed).', labelNames: ['job', 'outcome'], registers: [registry] }),
    poolWaitsRanOut: new Counter({
      name: 'cairn_db_pool_waits_ran_out_total',
      help: 'Waits for a free database connection that ran out (CAIRN_DB_CONNECT_TIMEOUT_MS), by pool and outcome (busy: the server finished statements meanwhile; no_progress: it finished none, answered as an outage).',
      labelNames: ['pool', 'outcome'],
      registers: [registry],
    }),
    gauge(name, help, labels, collect) {
      new Gauge({
        name,
        help,
        labelNames: [...labels],
        registers: [registry],
        async collect() {
          this.reset();
          await collect((values, value) => this.set(values, value)).catch(() => undefined);
        },
      });
    },
  };
}
