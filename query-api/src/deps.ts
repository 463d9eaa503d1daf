import type { ReadDb } from '@cairn/projections';

export type QueryDeps = {
  readonly db: ReadDb;
  readonly publicUrl: string;
};
