import type { CommandMetadata, EventStore, RepositoryStores } from '@cairn/platform';
import type { ReadDb } from '@cairn/projections';

/** What the content jobs and the content routes' shared steps need. */
export type ContentDeps = {
  readonly eventStore: EventStore;
  readonly db: ReadDb;
  readonly stores: RepositoryStores;
  readonly extraction: { readonly enabled: boolean; readonly timeoutMs: number; readonly memoryMb: number };
};

/** A job's own metadata: no request caused it; the job id correlates its events. */
export function jobMetadata(jobId: string): CommandMetadata {
  return { requestId: null, correlationId: jobId, causationId: jobId };
}
