import type { z } from 'zod';
import { jobSchemas, type JobName } from './jobs.ts';

export type JobHandler<N extends JobName> = (payload: z.output<(typeof jobSchemas)[N]>) => Promise<void>;
export type JobHandlers = { [N in JobName]: JobHandler<N> };

/** Refuses to boot when a declared job has no handler, or a handler has no declared job. */
export function checkRegistry(handlers: Record<string, unknown>): void {
  const declared = Object.keys(jobSchemas);
  const missing = declared.filter((name) => typeof handlers[name] !== 'function');
  const unknown = Object.keys(handlers).filter((name) => !declared.includes(name));
  if (missing.length > 0 || unknown.length > 0) {
    throw new Error(`job registry mismatch: missing handlers [${missing.join(', ')}], unknown handlers [${unknown.join(', ')}]`);
  }
}
