import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../shared/command-context.ts';
import { givenFor } from '../shared/decider-spec.ts';
import { allPermissionBits, permissionBits as b } from '../shared/permissions.ts';
import type { MarkdownNoteCommand, NoteCommand } from './commands.ts';
import { markdownNoteDecider, notesDecider } from './decide.ts';
import { noteLimits, type MarkdownNoteEvent, type NoteEvent } from './events.ts';

const assetId = 'a1';
const author = 'author';
const other = 'other';
const now = '2026-01-01T00:00:00.000Z';
const as = (userId: string | null, isSystemAdmin = false): CommandContext => ({ actor: { userId, isSystemAdmin }, now });

/** Flags as the route reads them: readers who may write notes, and more. */
const writer = b.READ_METADATA | b.WRITE_NOTES;
const manager = b.READ_METADATA | b.WRITE_NOTES | b.MANAGE;

const add = (content = 'hello', flags = writer): NoteCommand => ({ type: 'AddNote', assetId, noteId: 'n1', content, access: { flags } });
const edit = (content: string, flags = writer, noteId = 'n1'): NoteCommand => ({ type: 'EditNote', assetId, noteId, content, access: { flags } });
const remove = (flags = writer, noteId = 'n1'): NoteCommand => ({ type: 'DeleteNote', assetId, noteId, access: { flags } });

const added: NoteEvent = { type: 'NoteAdded', data: { assetId, noteId: 'n1', authorId: author, content: 'hello' } };
const edited: NoteEvent = { type: 'NoteEdited', data: { assetId, noteId: 'n1', content: 'changed' } };
const deleted: NoteEvent = { type: 'NoteDeleted', data: { assetId, noteId: 'n1' } };

const notes = givenFor(notesDecider, as(author));

describe('notes decider: add', () => {
  it('adds a note with the caller as author', () => {
    expect(notes([]).when(add('hello')).events).toEqual([added]);
    expect(notes([added]).when({ ...add('second'), noteId: 'n2' }, as(other)).events).toEqual([
      { type: 'NoteAdded', data: { assetId, noteId: 'n2', authorId: other, content: 'second' } },
    ]);
  });

  it('keeps the content to 1..10,000 characters, not blank', () => {
    expect(notes([]).when(add('')).code).toBe('invalid_content');
    expect(notes([]).when(add('   \n\t ')).code).toBe('invalid_content');
    expect(notes([]).when(add('x'.repeat(noteLimits.content + 1))).code).toBe('invalid_content');
    expect(notes([]).when(add('x'.repeat(noteLimits.content))).code).toBeNull();
    expect(notes([]).when(add('x')).code).toBeNull();
    // Surrounding whitespace is kept as written.
    expect(notes([]).when(add(' x ')).events[0]).toMatchObject({ data: { content: ' x ' } });
  });

  it('needs WRITE_NOTES; without READ_METADATA the asset is hidden whatever else was granted', () => {
    expect(notes([]).when(add('hello', b.READ_METADATA)).code).toBe('permission_denied');
    expect(notes([]).when(add('hello', b.READ_METADATA | b.READ_NOTES | b.WRITE_METADATA | b.MANAGE)).code).toBe('permission_denied');
    expect(notes([]).when(add('hello', b.WRITE_NOTES)).code).toBe('not_found');
    expect(notes([]).when(add('hello', allPermissionBits & ~b.READ_METADATA)).code).toBe('not_found');
    expect(notes([]).when(add('hello', 0)).code).toBe('not_found');
  });

  it('is for signed-in users only', () => {
    expect(notes([]).when(add('hello'), as(null)).code).toBe('permission_denied');
  });
});

describe('notes decider: edit and delete', () => {
  it('lets the author edit and delete their note', () => {
    expect(notes([added]).when(edit('changed')).events).toEqual([edited]);
    expect(notes([added, edited]).when(remove()).events).toEqual([deleted]);
  });

  it('records nothing for an edit that changes nothing', () => {
    expect(notes([added]).when(edit('hello'))).toEqual({ events: [], code: null });
    expect(notes([added, edited]).when(edit('changed'))).toEqual({ events: [], code: null });
    expect(notes([added, edited]).when(edit('hello')).events).toEqual([{ type: 'NoteEdited', data: { assetId, noteId: 'n1', content: 'hello' } }]);
  });

  it('keeps edited content within the limits', () => {
    expect(notes([added]).when(edit('')).code).toBe('invalid_content');
    expect(notes([added]).when(edit('  ')).code).toBe('invalid_content');
    expect(notes([added]).when(edit('x'.repeat(noteLimits.content + 1))).code).toBe('invalid_content');
    expect(notes([added]).when(edit('x'.repeat(noteLimits.content))).code).toBeNull();
  });

  it('refuses others, unless they manage the asset or administer the system', () => {
    expect(notes([added]).when(edit('changed'), as(other)).code).toBe('permission_denied');
    expect(notes([added]).when(remove(), as(other)).code).toBe('permission_denied');
    expect(notes([added]).when(edit('changed', manager), as(other)).events).toEqual([edited]);
    expect(notes([added]).when(remove(manager), as(other)).events).toEqual([deleted]);
    expect(notes([added]).when(edit('changed', allPermissionBits), as(other, true)).events).toEqual([edited]);
    expect(notes([added]).when(remove(allPermissionBits), as(other, true)).events).toEqual([deleted]);
    // An anonymous actor is nobody's author.
    expect(notes([added]).when(remove(), as(null)).code).toBe('permission_denied');
  });

  it('needs WRITE_NOTES even from the author and from who manages; hidden is not found', () => {
    expect(notes([added]).when(edit('changed', b.READ_METADATA | b.READ_NOTES)).code).toBe('permission_denied');
    expect(notes([added]).when(remove(b.READ_METADATA | b.MANAGE), as(other)).code).toBe('permission_denied');
    expect(notes([added]).when(edit('changed', b.WRITE_NOTES | b.MANAGE)).code).toBe('not_found');
    expect(notes([added]).when(remove(b.WRITE_NOTES)).code).toBe('not_found');
  });

  it('does not know notes that were never added, or were deleted', () => {
    expect(notes([]).when(edit('changed')).code).toBe('not_found');
    expect(notes([added]).when(edit('changed', writer, 'n2')).code).toBe('not_found');
    expect(notes([added]).when(remove(writer, 'n2')).code).toBe('not_found');
    expect(notes([added, deleted]).when(edit('changed')).code).toBe('not_found');
    expect(notes([added, deleted]).when(remove()).code).toBe('not_found');
    expect(notes([added, deleted]).when(remove(manager), as(other, true)).code).toBe('not_found');
  });

  it('folds edits into the state and keeps the author', () => {
    const { state } = notes([added, edited, { ...added, data: { ...added.data, noteId: 'n2', authorId: other } }, { type: 'NoteDeleted', data: { assetId, noteId: 'n2' } }]);
    expect([...state.notes.entries()]).toEqual([['n1', { authorId: author, content: 'changed' }]]);
  });
});

const put = (content: string, flags = writer): MarkdownNoteCommand => ({ type: 'PutMarkdownNote', assetId, content, access: { flags } });
const drop = (flags = writer): MarkdownNoteCommand => ({ type: 'DeleteMarkdownNote', assetId, access: { flags } });
const mdCreated: MarkdownNoteEvent = { type: 'MarkdownNoteCreated', data: { assetId, authorId: author, content: '# v1' } };
const mdUpdated: MarkdownNoteEvent = { type: 'MarkdownNoteUpdated', data: { assetId, content: '# v2' } };
const mdDeleted: MarkdownNoteEvent = { type: 'MarkdownNoteDeleted', data: { assetId } };

const markdown = givenFor(markdownNoteDecider, as(author));

describe('markdown note decider (interface 3)', () => {
  it('creates the note on a PUT when there is none, with the caller as author', () => {
    expect(markdown([]).when(put('# v1')).events).toEqual([mdCreated]);
    expect(markdown([]).when(put('# v1'), as(other)).events).toEqual([{ type: 'MarkdownNoteCreated', data: { assetId, authorId: other, content: '# v1' } }]);
  });

  it('updates only the content of a present note, whoever puts it', () => {
    expect(markdown([mdCreated]).when(put('# v2')).events).toEqual([mdUpdated]);
    expect(markdown([mdCreated]).when(put('# v2'), as(other)).events).toEqual([mdUpdated]);
    expect(markdown([mdCreated, mdUpdated]).state.note).toEqual({ authorId: author, content: '# v2' });
  });

  it('records nothing for a PUT of the content the note already has', () => {
    expect(markdown([mdCreated]).when(put('# v1'))).toEqual({ events: [], code: null });
    expect(markdown([mdCreated, mdUpdated]).when(put('# v2'), as(other))).toEqual({ events: [], code: null });
  });

  it('deletes a present note; a missing one is not found', () => {
    expect(markdown([mdCreated]).when(drop()).events).toEqual([mdDeleted]);
    expect(markdown([]).when(drop()).code).toBe('not_found');
    expect(markdown([mdCreated, mdDeleted]).when(drop()).code).toBe('not_found');
  });

  it('creates anew after a deletion, with the new caller as author', () => {
    expect(markdown([mdCreated, mdDeleted]).when(put('# v3'), as(other)).events).toEqual([{ type: 'MarkdownNoteCreated', data: { assetId, authorId: other, content: '# v3' } }]);
  });

  it('keeps the content to 1..100,000 characters, not blank', () => {
    expect(markdown([]).when(put('')).code).toBe('invalid_content');
    expect(markdown([]).when(put(' \n ')).code).toBe('invalid_content');
    expect(markdown([mdCreated]).when(put('\t')).code).toBe('invalid_content');
    expect(markdown([]).when(put('x'.repeat(noteLimits.markdown + 1))).code).toBe('invalid_content');
    expect(markdown([]).when(put('x'.repeat(noteLimits.markdown))).code).toBeNull();
  });

  it('needs WRITE_NOTES for PUT and DELETE; without READ_METADATA the asset is hidden', () => {
    expect(markdown([]).when(put('# v1', b.READ_METADATA | b.READ_NOTES)).code).toBe('permission_denied');
    expect(markdown([mdCreated]).when(drop(b.READ_METADATA | b.READ_NOTES | b.MANAGE)).code).toBe('permission_denied');
    expect(markdown([]).when(put('# v1', b.WRITE_NOTES)).code).toBe('not_found');
    expect(markdown([mdCreated]).when(drop(allPermissionBits & ~b.READ_METADATA)).code).toBe('not_found');
    // Hidden wins over missing note and over invalid content.
    expect(markdown([]).when(drop(0)).code).toBe('not_found');
    expect(markdown([]).when(put('', b.READ_METADATA)).code).toBe('permission_denied');
  });

  it('is created by signed-in users only', () => {
    expect(markdown([]).when(put('# v1'), as(null)).code).toBe('permission_denied');
  });
});
