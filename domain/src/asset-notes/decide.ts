import type { CommandContext } from '../shared/command-context.ts';
import { assertNever, type Decider } from '../shared/decider.ts';
import { permissionBits, type PermissionName } from '../shared/permissions.ts';
import type { MarkdownNoteCommand, NoteAccess, NoteCommand } from './commands.ts';
import { noteErrors } from './errors.ts';
import { noteLimits, type MarkdownNoteEvent, type NoteEvent } from './events.ts';

export type NotesState = { readonly notes: ReadonlyMap<string, { readonly authorId: string; readonly content: string }> };
export type MarkdownNoteState = { readonly note: { readonly authorId: string; readonly content: string } | null };

function need(access: NoteAccess, name: PermissionName): void {
  // Without READ_METADATA the asset is hidden: not found, whatever else was granted.
  if ((access.flags & permissionBits.READ_METADATA) === 0) throw noteErrors.assetNotFound();
  if ((access.flags & permissionBits[name]) === 0) throw noteErrors.lacks(name);
}

function validContent(content: string, max: number): string {
  if (content.trim().length === 0 || content.length > max) throw noteErrors.invalidContent(max);
  return content;
}

function author(context: CommandContext): string {
  if (context.actor.userId === null) throw noteErrors.signedInOnly();
  return context.actor.userId;
}

export function decideNotes(command: NoteCommand, state: NotesState, context: CommandContext): readonly NoteEvent[] {
  need(command.access, 'WRITE_NOTES');
  const { assetId } = command;
  if (command.type === 'AddNote') {
    return [{ type: 'NoteAdded', data: { assetId, noteId: command.noteId, authorId: author(context), content: validContent(command.content, noteLimits.content) } }];
  }
  const note = state.notes.get(command.noteId);
  if (!note) throw noteErrors.noteNotFound();
  // Authors change their own notes; those who manage the asset moderate everyone's.
  if (note.authorId !== context.actor.userId && (command.access.flags & permissionBits.MANAGE) === 0 && !context.actor.isSystemAdmin) throw noteErrors.notAuthor();
  switch (command.type) {
    case 'EditNote': {
      const content = validContent(command.content, noteLimits.content);
      return content === note.content ? [] : [{ type: 'NoteEdited', data: { assetId, noteId: command.noteId, content } }];
    }
    case 'DeleteNote':
      return [{ type: 'NoteDeleted', data: { assetId, noteId: command.noteId } }];
    default:
      return assertNever(command);
  }
}

export function evolveNotes(state: NotesState, event: NoteEvent): NotesState {
  const notes = new Map(state.notes);
  switch (event.type) {
    case 'NoteAdded':
      notes.set(event.data.noteId, { authorId: event.data.authorId, content: event.data.content });
      break;
    case 'NoteEdited': {
      const note = notes.get(event.data.noteId);
      if (note) notes.set(event.data.noteId, { ...note, content: event.data.content });
      break;
    }
    case 'NoteDeleted':
      notes.delete(event.data.noteId);
      break;
    default:
      return assertNever(event);
  }
  return { notes };
}

/**
 * Interface 3: a PUT creates the note (author: the caller) when there is none and
 * otherwise changes only its content. Two first PUTs race on the stream's version: the
 * loser decides again on the winner's note and updates it.
 */
export function decideMarkdownNote(command: MarkdownNoteCommand, state: MarkdownNoteState, context: CommandContext): readonly MarkdownNoteEvent[] {
  need(command.access, 'WRITE_NOTES');
  const { assetId } = command;
  switch (command.type) {
    case 'PutMarkdownNote': {
      const content = validContent(command.content, noteLimits.markdown);
      if (!state.note) return [{ type: 'MarkdownNoteCreated', data: { assetId, authorId: author(context), content } }];
      // An unchanged note still answers 200: the upsert is idempotent.
      return content === state.note.content ? [] : [{ type: 'MarkdownNoteUpdated', data: { assetId, content } }];
    }
    case 'DeleteMarkdownNote':
      if (!state.note) throw noteErrors.markdownNotFound();
      return [{ type: 'MarkdownNoteDeleted', data: { assetId } }];
    default:
      return assertNever(command);
  }
}

export function evolveMarkdownNote(state: MarkdownNoteState, event: MarkdownNoteEvent): MarkdownNoteState {
  switch (event.type) {
    case 'MarkdownNoteCreated':
      return { note: { authorId: event.data.authorId, content: event.data.content } };
    case 'MarkdownNoteUpdated':
      return state.note ? { note: { ...state.note, content: event.data.content } } : state;
    case 'MarkdownNoteDeleted':
      return { note: null };
    default:
      return assertNever(event);
  }
}

export const notesDecider: Decider<NoteCommand, NoteEvent, NotesState> = { initialState: { notes: new Map() }, evolve: evolveNotes, decide: decideNotes };
export const markdownNoteDecider: Decider<MarkdownNoteCommand, MarkdownNoteEvent, MarkdownNoteState> = {
  initialState: { note: null },
  evolve: evolveMarkdownNote,
  decide: decideMarkdownNote,
};

export const notesStream = (assetId: string) => `asset-notes-${assetId}`;
export const markdownNoteStream = (assetId: string) => `asset-markdown-note-${assetId}`;
