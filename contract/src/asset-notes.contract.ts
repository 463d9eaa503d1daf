import { assetNotes, assetRelationships } from '@cairn/domain';
import { defineContract } from '@cairn/platform';
import { z } from 'zod';
import { dateTime, uuid } from './fields.ts';

// Interface 4.3 and 3 (the markdown note); DECISIONS.md 4 names the bodies; docs/asset-notes.md has the rest.
const limits = assetNotes.noteLimits;
const content = (max: number) =>
  z
    .string()
    .refine((v) => v.trim().length > 0, 'This field may not be blank.')
    .refine((v) => v.length <= max, `Ensure this field has no more than ${max} characters.`);

export const noteSchema = z
  .object({ id: uuid, asset_id: uuid, author_id: uuid, author_name: z.string(), content: z.string(), created_at: dateTime, updated_at: dateTime })
  .meta({ id: 'Note' });
export const noteWriteSchema = z.object({ content: content(limits.content) }).meta({ id: 'NoteWrite' });

export const markdownNoteSchema = z
  .object({
    asset_id: uuid,
    content: z.string(),
    author_id: uuid.describe('Who created the note; later PUTs do not change it.'),
    created_at: dateTime,
    updated_at: dateTime,
    html: z.string().optional().describe('With `?format=html`: the note rendered as HTML, raw HTML escaped and unsafe links dropped.'),
  })
  .meta({ id: 'AssetMarkdownNote' });
export const markdownNoteWriteSchema = z.object({ content: content(limits.markdown) }).meta({ id: 'AssetMarkdownNoteWrite' });

export const relationshipSchema = z
  .object({
    id: uuid,
    from_asset_id: uuid,
    to_asset_id: uuid,
    relationship_type: z.enum(assetRelationships.relationshipTypes),
    created_by: uuid.nullable(),
    created_at: dateTime,
  })
  .meta({ id: 'AssetRelationship' });
export const relationshipWriteSchema = z
  .object({
    to_asset_id: z.uuid({ error: 'Must be a UUID.' }),
    relationship_type: z.enum(assetRelationships.relationshipTypes, { error: 'Must be a DataCite relation type, such as IsPartOf, References or IsDerivedFrom.' }),
  })
  .meta({ id: 'AssetRelationshipWrite' });

const tag = 'assets';
const noteModels = ['asset-notes', 'assets', 'identity', 'groups', 'projects'];
const relationshipModels = ['asset-relationships', 'assets', 'identity', 'groups', 'projects'];
const format = z.object({ format: z.enum(['json', 'html'], { error: 'Must be json or html.' }).optional().describe('`html` adds the rendered note as `html`.') });

export const listNotes = defineContract({
  operationId: 'assets_notes_list',
  method: 'get',
  path: '/api/assets/{id}/notes/',
  summary: 'The asset’s notes, newest first (READ_NOTES).',
  tag,
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The notes.', schema: z.array(noteSchema) } },
  readModels: noteModels,
});

export const addNote = defineContract({
  operationId: 'assets_notes_create',
  method: 'post',
  path: '/api/assets/{id}/notes/',
  summary: 'Add a note (WRITE_NOTES); allowed while the asset is locked.',
  tag,
  side: 'command',
  authenticated: true,
  body: noteWriteSchema,
  bodyRequired: true,
  responses: { 201: { description: 'The note.', schema: noteSchema } },
  readModels: noteModels,
});

export const editNote = defineContract({
  operationId: 'assets_notes_partial_update',
  method: 'patch',
  path: '/api/assets/{id}/notes/{note_id}/',
  summary: 'Change a note’s content: its author (with WRITE_NOTES) or who manages the asset.',
  tag,
  side: 'command',
  authenticated: true,
  body: noteWriteSchema,
  bodyRequired: true,
  responses: { 200: { description: 'The note.', schema: noteSchema } },
  readModels: noteModels,
});

export const deleteNote = defineContract({
  operationId: 'assets_notes_destroy',
  method: 'delete',
  path: '/api/assets/{id}/notes/{note_id}/',
  summary: 'Delete a note: its author (with WRITE_NOTES) or who manages the asset.',
  tag,
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Deleted.' } },
  readModels: noteModels,
});

export const getMarkdownNote = defineContract({
  operationId: 'assets_markdown_note_retrieve',
  method: 'get',
  path: '/api/assets/{id}/markdown-note/',
  summary: 'The asset’s markdown note (READ_NOTES); 404 when there is none.',
  tag,
  side: 'query',
  authenticated: true,
  query: format,
  responses: { 200: { description: 'The note.', schema: markdownNoteSchema } },
  readModels: noteModels,
});

export const putMarkdownNote = defineContract({
  operationId: 'assets_markdown_note_update',
  method: 'put',
  path: '/api/assets/{id}/markdown-note/',
  summary: 'Create (201, author: the caller) or update (200, content only) the markdown note (WRITE_NOTES).',
  tag,
  side: 'command',
  authenticated: true,
  body: markdownNoteWriteSchema,
  bodyRequired: true,
  responses: { 200: { description: 'Updated.', schema: markdownNoteSchema }, 201: { description: 'Created.', schema: markdownNoteSchema } },
  readModels: noteModels,
});

export const deleteMarkdownNote = defineContract({
  operationId: 'assets_markdown_note_destroy',
  method: 'delete',
  path: '/api/assets/{id}/markdown-note/',
  summary: 'Delete the markdown note (WRITE_NOTES); 404 when there is none.',
  tag,
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Deleted.' } },
  readModels: noteModels,
});

export const listRelationships = defineContract({
  operationId: 'assets_relationships_list',
  method: 'get',
  path: '/api/assets/{id}/relationships/',
  summary: 'The asset’s outgoing relationships (incoming with `?direction=incoming`) whose other end the caller may read (READ_METADATA), oldest first.',
  tag,
  side: 'query',
  authenticated: true,
  query: z.object({ direction: z.enum(['outgoing', 'incoming'], { error: 'Must be outgoing or incoming.' }).optional() }),
  responses: { 200: { description: 'The relationships.', schema: z.array(relationshipSchema) } },
  readModels: relationshipModels,
});

export const addRelationship = defineContract({
  operationId: 'assets_relationships_create',
  method: 'post',
  path: '/api/assets/{id}/relationships/',
  summary:
    'Link this asset to another (WRITE_METADATA here, READ_METADATA on the target; a target you cannot read is 404 like a missing one). Self-links are 400, exact duplicates 409, a locked source 423.',
  tag,
  side: 'command',
  authenticated: true,
  body: relationshipWriteSchema,
  bodyRequired: true,
  responses: { 201: { description: 'The relationship.', schema: relationshipSchema } },
  // A locked asset (the other statuses are derived: documented-answers.ts).
  errors: [423],
  readModels: relationshipModels,
});

export const deleteRelationship = defineContract({
  operationId: 'assets_relationships_destroy',
  method: 'delete',
  path: '/api/assets/{id}/relationships/{rel_id}/',
  summary: 'Remove an outgoing relationship (WRITE_METADATA on the source); 423 while the source is locked.',
  tag,
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Removed.' } },
  // A locked asset (the other statuses are derived: documented-answers.ts).
  errors: [423],
  readModels: relationshipModels,
});

export const assetNoteContracts = [listNotes, addNote, editNote, deleteNote, getMarkdownNote, putMarkdownNote, deleteMarkdownNote, listRelationships, addRelationship, deleteRelationship];
