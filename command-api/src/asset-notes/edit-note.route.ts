import { assetNotes } from '@cairn/domain';
import { editNote } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { fieldErrors, openAssetFor } from '../assets/asset-access.ts';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { readBackNote } from './read-back-note.ts';

export const editNoteRoute = (deps: CommandDeps) =>
  implement(editNote, async ({ params, body, context, req }) => {
    const { open } = await openAssetFor(deps, params['id'] ?? '', context, req);
    const assetId = open.asset.id;
    const noteId = params['note_id'] ?? '';
    return runCommand(
      deps,
      context,
      {
        decider: assetNotes.notesDecider,
        stream: assetNotes.notesStream(assetId),
        command: { type: 'EditNote', assetId, noteId, content: body.content, access: { flags: open.asset.flags } },
        onError: fieldErrors,
      },
      { status: 200, ...readBackNote(deps, assetId, noteId) },
    );
  });
