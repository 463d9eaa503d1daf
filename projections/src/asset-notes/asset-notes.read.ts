import type { ReadDb } from '../schema.ts';

export type NoteRecord = { id: string; asset_id: string; author_id: string; author_name: string | null; content: string; created_at: Date; updated_at: Date };

function notesQuery(db: ReadDb) {
  return db
    .selectFrom('asset_notes as n')
    .leftJoin('users as u', 'u.id', 'n.author_id')
    .select(['n.id', 'n.asset_id', 'n.author_id', 'u.name as author_name', 'n.content', 'n.created_at', 'n.updated_at']);
}

/** Newest first. */
export async function listNotes(db: ReadDb, assetId: string): Promise<NoteRecord[]> {
  return notesQuery(db).where('n.asset_id', '=', assetId).orderBy('n.created_at', 'desc').orderBy('n.id').execute();
}

export async function findNote(db: ReadDb, assetId: string, noteId: string): Promise<NoteRecord | undefined> {
  return notesQuery(db).where('n.asset_id', '=', assetId).where('n.id', '=', noteId).executeTakeFirst();
}

export function presentNote(note: NoteRecord) {
  return {
    id: note.id,
    asset_id: note.asset_id,
    author_id: note.author_id,
    author_name: note.author_name ?? '',
    content: note.content,
    created_at: note.created_at.toISOString(),
    updated_at: note.updated_at.toISOString(),
  };
}

export type MarkdownNoteRecord = { asset_id: string; author_id: string; content: string; created_at: Date; updated_at: Date };

export async function findMarkdownNote(db: ReadDb, assetId: string): Promise<MarkdownNoteRecord | undefined> {
  return db.selectFrom('asset_markdown_notes').selectAll().where('asset_id', '=', assetId).executeTakeFirst();
}

export function presentMarkdownNote(note: MarkdownNoteRecord) {
  return { asset_id: note.asset_id, content: note.content, author_id: note.author_id, created_at: note.created_at.toISOString(), updated_at: note.updated_at.toISOString() };
}
