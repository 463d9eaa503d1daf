import { z } from 'zod';

/**
 * Every background job: its name and payload schema (docs/jobs.md). Jobs are recorded in
 * the outbox with the events that call for them (projections/src/jobs); a job without a
 * handler stops the worker at start (registry.ts).
 */
export const jobSchemas = {
  'extract-metadata': z.object({ contentId: z.uuid(), assetId: z.uuid() }),
  'migrate-asset': z.object({ assetId: z.uuid(), migrationId: z.uuid() }),
  'purge-asset-content': z.object({ assetId: z.uuid() }),
  'expire-upload': z.object({ uploadId: z.uuid(), assetId: z.uuid() }),
  // Scheduled by the webhook scheduler while a subscription is behind the log (docs/changes.md, "Webhooks").
  'webhook-deliver': z.object({ webhookId: z.uuid() }),
  'webhook-replay': z.object({ webhookId: z.uuid(), deliveryId: z.uuid(), replayId: z.uuid() }),
} satisfies Record<string, z.ZodType>;

export type JobName = keyof typeof jobSchemas;

/** Which run of a job this is: handlers record a failure as final on the last one. */
export type JobRun = { readonly id: string; readonly attempt: number; readonly final: boolean };
