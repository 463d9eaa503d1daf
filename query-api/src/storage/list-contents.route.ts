import { listContents } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { listContents as readContents, presentContent } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { openForRead } from './content-gate.ts';

export const listContentsRoute = (deps: QueryDeps) =>
  implement(listContents, async ({ params, context, req }) => {
    const { asset } = await openForRead(deps, params['id'] ?? '', context.caller, req, 'READ_CONTENT');
    return { status: 200, body: (await readContents(deps.db, asset.id)).map(presentContent) };
  });
