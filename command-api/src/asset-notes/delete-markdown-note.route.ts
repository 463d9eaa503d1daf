import { assetNotes } from '@cairn/domain';
import { deleteMarkdownNote } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { openAssetFor } from '../assets/asset-access.ts';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';

export const deleteMarkdownNoteRoute = (deps: CommandDeps) =>
  implement(deleteMarkdownNote, async ({ params, context, req }) => {
    const { open } = await openAssetFor(deps, params['id'] ?? '', context, req);
    const assetId = open.asset.id;
    return runCommand(
      deps,
      context,
      { decider: assetNotes.markdownNoteDecider, stream: assetNotes.markdownNoteStream(assetId), command: { type: 'DeleteMarkdownNote', assetId, access: { flags: open.asset.flags } } },
      { status: 204 },
    );
  });
