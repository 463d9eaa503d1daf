import { lackedPermissions, permissionBits } from '@cairn/domain';
import { getMarkdownNote } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { findMarkdownNote, openAsset, presentMarkdownNote } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { renderMarkdown } from './render-markdown.ts';

export const getMarkdownNoteRoute = (deps: QueryDeps) =>
  implement(getMarkdownNote, async ({ params, query, context, req }) => {
    const { asset } = await openAsset(deps, params['id'] ?? '', context.caller, req);
    if ((asset.flags & permissionBits.READ_NOTES) === 0) throw httpErrors.forbidden(lackedPermissions(['READ_NOTES'], 'this asset'));
    const note = await findMarkdownNote(deps.db, asset.id);
    if (!note) throw httpErrors.notFound('This asset has no markdown note.');
    const body = presentMarkdownNote(note);
    return { status: 200, body: query.format === 'html' ? { ...body, html: renderMarkdown(note.content) } : body };
  });
