import type { BoundOperation } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { addNoteRoute } from './add-note.route.ts';
import { addRelationshipRoute } from './add-relationship.route.ts';
import { deleteMarkdownNoteRoute } from './delete-markdown-note.route.ts';
import { deleteNoteRoute } from './delete-note.route.ts';
import { deleteRelationshipRoute } from './delete-relationship.route.ts';
import { editNoteRoute } from './edit-note.route.ts';
import { putMarkdownNoteRoute } from './put-markdown-note.route.ts';

/** Notes, the markdown note and relationships of assets (docs/asset-notes.md). */
export function assetNoteCommandRoutes(deps: CommandDeps): BoundOperation[] {
  return [addNoteRoute(deps), editNoteRoute(deps), deleteNoteRoute(deps), putMarkdownNoteRoute(deps), deleteMarkdownNoteRoute(deps), addRelationshipRoute(deps), deleteRelationshipRoute(deps)];
}
