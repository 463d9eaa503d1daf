import { getCollection } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { presentCollection } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { openCollection } from './open-collection.ts';

export const getCollectionRoute = (deps: QueryDeps) =>
  implement(getCollection, async ({ params, context, req }) => {
    const { collection } = await openCollection(deps, params['id'] ?? '', context.caller, req);
    return { status: 200, body: presentCollection(collection) };
  });
