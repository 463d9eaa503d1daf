import { findNote, presentNote } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';

/** The note read back after a write. */
export const readBackNote = (deps: CommandDeps, assetId: string, noteId: string) => ({ read: () => findNote(deps.db, assetId, noteId), present: presentNote, notFound: 'Note not found.' });
