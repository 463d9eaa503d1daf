import { assetNotes } from '@cairn/domain';
import { putMarkdownNote } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { findMarkdownNote, presentMarkdownNote } from '@cairn/projections';
import { fieldErrors, openAssetFor } from '../assets/asset-access.ts';
import { awaitReadModels, type CommandDeps } from '../deps.ts';
import { executeStep } from '../run-command.ts';

/** Interface 3: 201 when this PUT created the note, 200 when it updated it (or found it as sent). */
export const putMarkdownNoteRoute = (deps: CommandDeps) =>
  implement(putMarkdownNote, async ({ params, body, context, req }) => {
    const { open } = await openAssetFor(deps, params['id'] ?? '', context, req);
    const assetId = open.asset.id;
    const outcome = await executeStep(deps, context, {
      decider: assetNotes.markdownNoteDecider,
      stream: assetNotes.markdownNoteStream(assetId),
      command: { type: 'PutMarkdownNote', assetId, content: body.content, access: { flags: open.asset.flags } },
      onError: fieldErrors,
    });
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    const note = await findMarkdownNote(deps.db, assetId);
    if (!note) throw httpErrors.notFound('This asset has no markdown note.');
    const created = outcome.events.some((e) => e.type === 'MarkdownNoteCreated');
    return { status: created ? 201 : 200, body: presentMarkdownNote(note), position: outcome.position };
  });
