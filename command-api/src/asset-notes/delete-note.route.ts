import { assetNotes } from '@cairn/domain';
import { deleteNote } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { openAssetFor } from '../assets/asset-access.ts';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';

export const deleteNoteRoute = (deps: CommandDeps) =>
  implement(deleteNote, async ({ params, context, req }) => {
    const { open } = await openAssetFor(deps, params['id'] ?? '', context, req);
    const assetId = open.asset.id;
    return runCommand(
      deps,
      context,
      {
        decider: assetNotes.notesDecider,
        stream: assetNotes.notesStream(assetId),
        command: { type: 'DeleteNote', assetId, noteId: params['note_id'] ?? '', access: { flags: open.asset.flags } },
      },
      { status: 204 },
    );
  });
