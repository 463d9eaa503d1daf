import type { z } from 'zod';

/**
 * Every background job: its name and payload schema. The migration retry and metadata
 * extraction jobs of the asset issues are added here; a job without a handler stops the
 * worker at boot (see registry.ts).
 */
export const jobSchemas = {} satisfies Record<string, z.ZodType>;

export type JobName = keyof typeof jobSchemas;
