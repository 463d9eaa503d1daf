import type { z } from 'zod';
import { jobSchemas, type JobName, type JobRun } from './jobs.ts';

export type JobHandler<N extends JobName> = (payload: z.output<(typeof jobSchemas)[N]>, run: JobRun) => Promise<void>;
export type JobHandlers = { [N in JobName]: JobHandler<N> };
/** The handlers of some of the jobs: each feature brings its own, and the worker takes them all. */
export type JobHandlersOf<N extends JobName> = { [K in N]: JobHandler<K> };

/** Refuses to boot when a declared job has no handler, or a handler has no declared job. */
export function checkRegistry(handlers: Record<string, unknown>): void {
  const declared = Object.keys(jobSchemas);
  const missing = declared.filter((name) => typeof handlers[name] !== 'function');
  const unknown = Object.keys(handlers).filter((name) => !declared.includes(name));
  if (missing.length > 0 || unknown.length > 0) {
    throw new Error(`job registry mismatch: missing handlers [${missing.join(', ')}], unknown handlers [${unknown.join(', ')}]`);
  }
}

/** Parses the payload with the job's schema and runs its handler. */
export async function runJob(handlers: JobHandlers, name: string, payload: unknown, run: JobRun): Promise<void> {
  const schema = (jobSchemas as Record<string, { parse(v: unknown): unknown }>)[name];
  const handler = (handlers as Record<string, (payload: unknown, run: JobRun) => Promise<void>>)[name];
  if (!schema || !handler) throw new Error(`no handler for job ${name}`);
  await handler(schema.parse(payload), run);
}
