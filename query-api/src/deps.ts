import type { IncomingHttpHeaders } from 'node:http';
import type { EventStore, GeoService, Logger, RepositoryStores } from '@cairn/platform';
import type pg from 'pg';
import type { ReadDb } from '@cairn/projections';
import type { ReadCache } from './read-cache/read-cache.ts';
import type { CostlyReads } from './costly-reads/costly-reads.ts';
import type { ChangeHub } from './changes/change-hub.ts';
import type { KeptViewerFacts } from './assets/kept-viewer-facts.ts';

export type QueryDeps = {
  readonly db: ReadDb;
  readonly publicUrl: string;
  /** The geographic restriction of projects (docs/projects.md). */
  readonly geo?: GeoService | undefined;
  /** Rows the asset query's post-filter examines per page at most (docs/asset-query.md). */
  readonly queryScanCap?: number;
  /** About how many assets a filtered page's first window spans (docs/assets.md). */
  readonly listingWindowRows?: number;
  /** At most how many of a driver's matches a filtered page walks in order (docs/assets.md). */
  readonly listingWalkRows?: number;
  /** Callers' listing facts kept by this process, checked by the statements that use them (docs/assets.md). */
  readonly viewerFacts: KeptViewerFacts;
  /** Where the reads whose cost the caller chooses run: a statement timeout and a bound per caller (docs/asset-query.md). */
  readonly costlyReads: CostlyReads;
  /** Answers of the asset and collection reads, kept while the database snapshot stays the same (docs/read-cache.md). */
  readonly readCache?: ReadCache | undefined;
  /** Where content bytes are, for the location and the fs download route (docs/storage.md). */
  /** The audit reads the log itself: it is the one read that is not of a read model (docs/audit.md). */
  readonly audit: { readonly eventStore: EventStore; readonly pool: pg.Pool };
  /** The change feed (docs/changes.md): the log it reads, and the process's shared reader of its streams. */
  readonly changes: {
    readonly eventStore: EventStore;
    readonly hub: ChangeHub;
    readonly logger?: Logger | undefined;
    /** Whether a stream's credentials (its request's headers) still hold: a revoked token or an ended session ends the stream. */
    readonly credentialsHold?: ((headers: IncomingHttpHeaders) => Promise<boolean>) | undefined;
  };
  readonly storage: {
    readonly stores: RepositoryStores;
    readonly downloadKey: string;
    readonly downloadUrlTtlSeconds: number;
    /** Signs the fs part URLs of direct uploads that the upload's status re-issues (docs/storage.md "Direct uploads"). */
    readonly uploadLinkKey: Buffer;
    readonly partUrlTtlSeconds: number;
  };
};
