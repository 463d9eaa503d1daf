import type { Resources } from '@cairn/cli';
import { startProjector, type Projection, type Projector } from '@cairn/projections';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createTestDatabase } from '../../support/database.ts';
import { openTestResources } from '../../support/harness.ts';

/**
 * A fresh database and resources for one describe block; projectors started in it are
 * stopped after each test. The projections under test run async here (the projector's
 * path): appends do not apply them inline.
 */
const asyncMode = { CAIRN_PROJECTION_MODE: 'async' };

export function useDatabase(options: { stopProjectorsAfterEach?: boolean } = {}) {
  const state: { databaseUrl: string; resources: Resources[]; projectors: Projector[] } = { databaseUrl: '', resources: [], projectors: [] };
  beforeAll(async () => {
    state.databaseUrl = await createTestDatabase();
    state.resources.push(await openTestResources(state.databaseUrl, asyncMode));
  });
  afterEach(async () => {
    if (options.stopProjectorsAfterEach === false) return;
    for (const projector of state.projectors.splice(0)) await projector.stop();
  });
  afterAll(async () => {
    for (const projector of state.projectors.splice(0)) await projector.stop();
    for (const resources of state.resources.splice(0).reverse()) await resources.close();
  });
  return {
    get databaseUrl() {
      return state.databaseUrl;
    },
    get resources(): Resources {
      const first = state.resources[0];
      if (!first) throw new Error('resources are not open yet');
      return first;
    },
    /** More resources on the same database: their own pool, as another process would have. */
    async openMore(): Promise<Resources> {
      const more = await openTestResources(state.databaseUrl, asyncMode);
      state.resources.push(more);
      return more;
    },
    async startProjector(resources: Resources, selected: readonly Projection[], pollIntervalMs: number, batchSize?: number, more: { readonly bulkCatchUpEvents?: number } = {}): Promise<Projector> {
      const projector = await startProjector({
        db: resources.db,
        eventStore: resources.eventStore,
        projections: selected,
        logger: resources.logger,
        databaseUrl: state.databaseUrl,
        pollIntervalMs,
        ...(batchSize !== undefined ? { batchSize } : {}),
        ...more,
      });
      state.projectors.push(projector);
      return projector;
    },
    async stop(projector: Projector): Promise<void> {
      const index = state.projectors.indexOf(projector);
      if (index >= 0) state.projectors.splice(index, 1);
      await projector.stop();
    },
  };
}
