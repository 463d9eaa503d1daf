import { assetNotes } from '@cairn/domain';
import { addNote } from '@cairn/contract';
import { implement, newId } from '@cairn/platform';
import { fieldErrors, openAssetFor } from '../assets/asset-access.ts';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { readBackNote } from './read-back-note.ts';

export const addNoteRoute = (deps: CommandDeps) =>
  implement(addNote, async ({ params, body, context, req }) => {
    const { open } = await openAssetFor(deps, params['id'] ?? '', context, req);
    const assetId = open.asset.id;
    const noteId = newId(context);
    return runCommand(
      deps,
      context,
      {
        decider: assetNotes.notesDecider,
        stream: assetNotes.notesStream(assetId),
        command: { type: 'AddNote', assetId, noteId, content: body.content, access: { flags: open.asset.flags } },
        onError: fieldErrors,
      },
      { status: 201, ...readBackNote(deps, assetId, noteId), headers: { Location: `/api/assets/${assetId}/notes/${noteId}/` } },
    );
  });
