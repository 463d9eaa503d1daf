import { getContent } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { findContent, presentContent } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { openForRead } from './content-gate.ts';

export const getContentRoute = (deps: QueryDeps) =>
  implement(getContent, async ({ params, context, req }) => {
    const { asset } = await openForRead(deps, params['id'] ?? '', context.caller, req, 'READ_CONTENT');
    const row = await findContent(deps.db, asset.id, params['content_pk'] ?? '');
    if (!row) throw httpErrors.notFound('Content not found.');
    return { status: 200, body: presentContent(row) };
  });
