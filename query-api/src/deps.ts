import type { GeoService } from '@cairn/platform';
import type { ReadDb } from '@cairn/projections';

export type QueryDeps = {
  readonly db: ReadDb;
  readonly publicUrl: string;
  /** The geographic restriction of projects (docs/projects.md). */
  readonly geo?: GeoService | undefined;
  /** Rows the asset query's post-filter examines per page at most (docs/asset-query.md). */
  readonly queryScanCap?: number;
};
