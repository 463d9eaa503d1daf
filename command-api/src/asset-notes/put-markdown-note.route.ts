import { assetNotes, DomainError } from '@cairn/domain';
import { putMarkdownNote } from '@cairn/contract';
import { httpErrors, implement, type RequestContext } from '@cairn/platform';
import { findMarkdownNote, presentMarkdownNote } from '@cairn/projections';
import { fieldErrors, openAssetFor } from '../assets/asset-access.ts';
import { awaitReadModels, type CommandDeps } from '../deps.ts';
import { executeStep, type CommandStep } from '../run-command.ts';

/**
 * How many times a PUT that keeps losing the race on the note's stream starts again (each
 * start decides and appends a few times) before it answers 409. A PUT replaces the content
 * whatever it was, and each lost race means another PUT landed, so N racing PUTs all land
 * within N attempts: they answer 201 once and 200 otherwise, not 409 (docs/asset-notes.md).
 */
const putRounds = 8;

type PutStep = CommandStep<assetNotes.MarkdownNoteCommand, assetNotes.MarkdownNoteEvent, assetNotes.MarkdownNoteState>;

async function putUntilLanded(deps: CommandDeps, context: RequestContext, step: PutStep) {
  for (let round = 1; ; round += 1) {
    try {
      return await executeStep(deps, context, step);
    } catch (error) {
      const lostRace = error instanceof DomainError && error.code === 'concurrent_modification';
      if (!lostRace || round >= putRounds) throw error;
    }
  }
}

/** Interface 3: 201 when this PUT created the note, 200 when it updated it (or found it as sent). */
export const putMarkdownNoteRoute = (deps: CommandDeps) =>
  implement(putMarkdownNote, async ({ params, body, context, req }) => {
    const { open } = await openAssetFor(deps, params['id'] ?? '', context, req);
    const assetId = open.asset.id;
    const outcome = await putUntilLanded(deps, context, {
      decider: assetNotes.markdownNoteDecider,
      stream: assetNotes.markdownNoteStream(assetId),
      command: { type: 'PutMarkdownNote', assetId, content: body.content, access: { flags: open.asset.flags } },
      onError: fieldErrors,
    });
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    const note = await findMarkdownNote(deps.db, assetId);
    if (!note) throw httpErrors.notFound('This asset has no markdown note.');
    const created = outcome.events.some((e) => e.type === 'MarkdownNoteCreated');
    // A 201 names what it made (RFC 9110 15.3.2), as every create does; the note's address is the PUT's own.
    const location = created ? { headers: { Location: `/api/assets/${assetId}/markdown-note/` } } : {};
    return { status: created ? 201 : 200, body: presentMarkdownNote(note), position: outcome.position, ...location };
  });
