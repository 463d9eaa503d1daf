/** The caller's flags on the asset, read by the route: notes live outside the asset's stream. */
export type NoteAccess = { readonly flags: number };

type NoteCommandOf<T extends string, Fields = unknown> = { readonly type: T; readonly assetId: string; readonly access: NoteAccess } & Fields;

export type AddNote = NoteCommandOf<'AddNote', { readonly noteId: string; readonly content: string }>;
export type EditNote = NoteCommandOf<'EditNote', { readonly noteId: string; readonly content: string }>;
export type DeleteNote = NoteCommandOf<'DeleteNote', { readonly noteId: string }>;
export type NoteCommand = AddNote | EditNote | DeleteNote;

export type PutMarkdownNote = NoteCommandOf<'PutMarkdownNote', { readonly content: string }>;
export type DeleteMarkdownNote = NoteCommandOf<'DeleteMarkdownNote'>;
export type MarkdownNoteCommand = PutMarkdownNote | DeleteMarkdownNote;
