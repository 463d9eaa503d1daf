import type { assetNotes, assets } from '@cairn/domain';
import type { Projection } from '../runner/projection.ts';
import { insert, remove, update, upsert } from '../runner/row-ops.ts';

type Event = assetNotes.NoteEvent | assetNotes.MarkdownNoteEvent | assets.AssetDeleted;

/**
 * Notes and markdown notes (interface 4.3); a deleted asset's go with it. That deletion
 * comes from the asset's stream and touches rows of the notes' streams: `serialized`, so
 * that inline appends apply in the log's order and a rebuild equals the live tables.
 */
export const assetNotesProjection: Projection = {
  name: 'asset-notes',
  version: 1,
  serialized: true,
  handles: ['NoteAdded', 'NoteEdited', 'NoteDeleted', 'MarkdownNoteCreated', 'MarkdownNoteUpdated', 'MarkdownNoteDeleted', 'AssetDeleted'],
  tables: ['asset_notes', 'asset_markdown_notes'],
  project(recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'NoteAdded': {
        const d = event.data;
        return [insert('asset_notes', { id: d.noteId, asset_id: d.assetId, author_id: d.authorId, content: d.content, created_at: at, updated_at: at }, { key: ['id'] })];
      }
      case 'NoteEdited':
        return [update('asset_notes', { id: event.data.noteId }, { content: event.data.content, updated_at: at })];
      case 'NoteDeleted':
        return [remove('asset_notes', { id: event.data.noteId })];
      case 'MarkdownNoteCreated': {
        const d = event.data;
        return [
          upsert(
            'asset_markdown_notes',
            { asset_id: d.assetId, author_id: d.authorId, content: d.content, created_at: at, updated_at: at },
            { key: ['asset_id'], update: ['author_id', 'content', 'created_at', 'updated_at'] },
          ),
        ];
      }
      case 'MarkdownNoteUpdated':
        return [update('asset_markdown_notes', { asset_id: event.data.assetId }, { content: event.data.content, updated_at: at })];
      case 'MarkdownNoteDeleted':
        return [remove('asset_markdown_notes', { asset_id: event.data.assetId })];
      case 'AssetDeleted':
        return [remove('asset_notes', { asset_id: event.data.id }), remove('asset_markdown_notes', { asset_id: event.data.id })];
    }
  },
};
