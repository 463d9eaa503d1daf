import type { BoundOperation } from '@cairn/platform';
import type { QueryDeps } from '../deps.ts';
import { getMarkdownNoteRoute } from './get-markdown-note.route.ts';
import { listNotesRoute } from './list-notes.route.ts';
import { listRelationshipsRoute } from './list-relationships.route.ts';

export function assetNoteQueryRoutes(deps: QueryDeps): BoundOperation[] {
  return [listNotesRoute(deps), getMarkdownNoteRoute(deps), listRelationshipsRoute(deps)];
}
