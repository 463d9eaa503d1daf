import type { DomainEvent } from '../shared/events.ts';

/** Notes of an asset (stream `asset-notes-<asset>`): many, append-mostly, writable while the asset is locked. */
export type NoteAdded = DomainEvent<'NoteAdded', { readonly assetId: string; readonly noteId: string; readonly authorId: string; readonly content: string }>;
export type NoteEdited = DomainEvent<'NoteEdited', { readonly assetId: string; readonly noteId: string; readonly content: string }>;
export type NoteDeleted = DomainEvent<'NoteDeleted', { readonly assetId: string; readonly noteId: string }>;
export type NoteEvent = NoteAdded | NoteEdited | NoteDeleted;
export const noteEventTypes = ['NoteAdded', 'NoteEdited', 'NoteDeleted'] as const satisfies readonly NoteEvent['type'][];

/** The one markdown note of an asset (stream `asset-markdown-note-<asset>`), interface 3. */
export type MarkdownNoteCreated = DomainEvent<'MarkdownNoteCreated', { readonly assetId: string; readonly authorId: string; readonly content: string }>;
export type MarkdownNoteUpdated = DomainEvent<'MarkdownNoteUpdated', { readonly assetId: string; readonly content: string }>;
export type MarkdownNoteDeleted = DomainEvent<'MarkdownNoteDeleted', { readonly assetId: string }>;
export type MarkdownNoteEvent = MarkdownNoteCreated | MarkdownNoteUpdated | MarkdownNoteDeleted;
export const markdownNoteEventTypes = ['MarkdownNoteCreated', 'MarkdownNoteUpdated', 'MarkdownNoteDeleted'] as const satisfies readonly MarkdownNoteEvent['type'][];

export const noteLimits = { content: 10_000, markdown: 100_000 } as const;
