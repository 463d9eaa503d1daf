import { assets, collections } from '@cairn/domain';
import { defineContract } from '@cairn/platform';
import { z } from 'zod';
import { assetSchema, defaultPageSize, maxPageSize, pageLimit, permissionEntrySchema, permissionReplaceSchema } from './assets.contract.ts';
import { dateTime, optionalText, queryBoolean, queryInteger, requiredText, textList, uuid, uuidInput } from './fields.ts';

// Interface 2.3 and 4.4; DECISIONS.md 4 (owner_type, maxima); docs/collections.md has the rest.
const limits = collections.collectionLimits;
const uuidField = uuidInput;
const words = textList(limits.tag, limits.tagCount);

export const collectionSchema = z
  .object({
    id: uuid,
    title: z.string(),
    description: z.string(),
    alias: z.string(),
    tags: z.array(z.string()),
    type: z.array(z.string()),
    license: z.string(),
    parent_id: uuid.nullable(),
    parent_ids: z.array(uuid).describe('The ancestors, root first.'),
    owner_type: z.enum(['user', 'project']),
    owner_user_id: uuid.nullable(),
    owner_project_id: uuid.nullable(),
    owner_user_name: z.string().nullable(),
    owner_project_name: z.string().nullable(),
    is_root: z.boolean(),
    preferred_repository_id: uuid.nullable(),
    provenance_token: z.string().describe('Changes with every change of the collection: send it as If-Match on PATCH to detect concurrent edits (412).'),
    effective_flags: z.int().min(0),
    is_starred: z.boolean(),
    access_scope: z.enum(['direct', 'project', 'group', 'organization', 'public', 'admin']).nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Collection' });

export const collectionWriteSchema = z
  .object({
    title: requiredText(limits.title),
    description: optionalText(limits.description),
    alias: optionalText(limits.alias),
    tags: words.optional().transform((v) => v ?? []),
    type: words.optional().transform((v) => v ?? []),
    license: optionalText(limits.license),
    parent_id: uuidField.nullish().describe("Default: the owner's root collection."),
    owner_type: z.enum(['user', 'project'], { error: 'Must be user or project.' }).optional().describe('Default: `user` (the caller).'),
    owner_id: uuidField.optional(),
    preferred_repository_id: uuidField.nullish(),
  })
  .meta({ id: 'CollectionWrite' });

export const patchedCollectionSchema = z
  .object({
    title: requiredText(limits.title).optional(),
    description: optionalText(limits.description).optional(),
    alias: optionalText(limits.alias).optional(),
    tags: words.optional(),
    type: words.optional(),
    license: optionalText(limits.license).optional(),
    parent_id: uuidField.optional().describe('Moves the collection (MANAGE here; LIST and WRITE_METADATA on the new parent).'),
    preferred_repository_id: uuidField.nullish(),
  })
  .meta({ id: 'PatchedCollectionWrite' });

const cursor = z.string().optional().describe('The X-Next-Cursor of the previous page.');
export const collectionOrderings = ['created_at', '-created_at', 'creator', '-creator', 'title', '-title', 'updated_at', '-updated_at'] as const;

const tag = 'collections';
const readModels = ['collections', 'assets', 'identity', 'groups', 'projects'];
const pageHeaders = 'Headers: X-Page-Limit, X-Has-More, X-Next-Cursor (interface 4.3.2).';

/**
 * DECISIONS.md 8: without `limit` (and `cursor`) the listing is every collection the caller
 * sees, so an absent limit stays absent (undefined) rather than taking the default page size.
 */
const optionalLimit = queryInteger((n) => Math.min(maxPageSize, Math.max(1, n)))
  .optional()
  .describe(`Collections per page, clamped to 1..${maxPageSize}. Without it and without \`cursor\` the answer is every collection the caller sees; with \`cursor\` alone, pages of ${defaultPageSize}.`);

export const listCollections = defineContract({
  operationId: 'collections_list',
  method: 'get',
  path: '/api/collections/',
  summary: 'Every collection the caller may see, newest first, then by id; with `limit` or `cursor`, keyset-paginated.',
  tag,
  side: 'query',
  authenticated: true,
  query: z.object({
    access_scope: z.enum(['home', ...assets.accessScopes], { error: 'Not an access scope.' }).optional(),
    owner_id: uuidField.optional(),
    owner_type: z.enum(['user', 'project'], { error: 'Must be user or project.' }).optional(),
    parent_id: uuidField.optional(),
    q: z.string().max(255).optional().describe('Case-insensitive substring of the title or the alias.'),
    cursor,
    limit: optionalLimit,
  }),
  responses: { 200: { description: `Every collection the caller sees; with \`limit\` or \`cursor\`, a page of them. ${pageHeaders} (pages only)`, schema: z.array(collectionSchema) } },
  readModels,
});

export const createCollection = defineContract({
  operationId: 'collections_create',
  method: 'post',
  path: '/api/collections/',
  summary: 'Create a collection under a parent the caller may LIST and WRITE_METADATA (default: the owner’s root).',
  tag,
  side: 'command',
  authenticated: true,
  body: collectionWriteSchema,
  bodyRequired: true,
  responses: { 201: { description: 'Created.', schema: collectionSchema } },
  readModels,
});

export const getCollection = defineContract({
  operationId: 'collections_retrieve',
  method: 'get',
  path: '/api/collections/{id}/',
  summary: 'Read one collection (READ_METADATA).',
  tag,
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The collection.', schema: collectionSchema } },
  readModels,
});

export const updateCollection = defineContract({
  operationId: 'collections_partial_update',
  method: 'patch',
  path: '/api/collections/{id}/',
  summary: 'Change a collection’s fields (WRITE_METADATA) or move it (`parent_id`); `If-Match` with an old provenance token is 412.',
  tag,
  side: 'command',
  authenticated: true,
  body: patchedCollectionSchema,
  responses: { 200: { description: 'The collection.', schema: collectionSchema } },
  // If-Match with an old provenance token.
  errors: [412],
  readModels,
});

export const deleteCollection = defineContract({
  operationId: 'collections_destroy',
  method: 'delete',
  path: '/api/collections/{id}/',
  summary: 'Delete a collection (DELETE); a non-empty one needs `?recursive=true`, which deletes its subtree and detaches (never deletes) its assets.',
  tag,
  side: 'command',
  authenticated: true,
  query: z.object({ recursive: queryBoolean.optional() }),
  responses: { 204: { description: 'Deleted.' } },
  readModels,
});

export const listCollectionAssets = defineContract({
  operationId: 'collections_assets_list',
  method: 'get',
  path: '/api/collections/{id}/assets/',
  summary: 'The assets in the collection that the caller may see (after the collection’s LIST gate).',
  tag,
  side: 'query',
  authenticated: true,
  query: z.object({
    cursor,
    limit: pageLimit,
    ordering: z.enum(collectionOrderings, { error: `Must be one of ${collectionOrderings.join(', ')}.` }).optional().describe('Default `-created_at`; ties by id.'),
  }),
  responses: { 200: { description: `A page of assets. ${pageHeaders}`, schema: z.array(assetSchema) } },
  readModels,
});

export const attachCollectionAssets = defineContract({
  operationId: 'collections_assets_create',
  method: 'post',
  path: '/api/collections/{id}/assets/',
  summary: 'Put assets in the collection (WRITE_METADATA here, READ_METADATA on each asset); all or nothing.',
  tag,
  side: 'command',
  authenticated: true,
  body: z.object({ asset_ids: z.array(uuidField, { error: 'Must be a list of asset ids.' }).min(1, 'Name at least one asset.').max(1000, 'At most 1000 assets.') }).meta({ id: 'CollectionAssetsAttach' }),
  bodyRequired: true,
  responses: { 204: { description: 'The assets are in the collection.' } },
  readModels,
});

export const detachCollectionAsset = defineContract({
  operationId: 'collections_assets_destroy',
  method: 'delete',
  path: '/api/collections/{id}/assets/{asset_id}/',
  summary: 'Take an asset out of the collection (WRITE_METADATA here, READ_METADATA on the asset).',
  tag,
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Detached.' } },
  readModels,
});

export const listCollectionPermissions = defineContract({
  operationId: 'collections_permissions_list',
  method: 'get',
  path: '/api/collections/{id}/permissions/',
  summary: 'The collection’s own permission entries (MANAGE).',
  tag,
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The entries.', schema: z.array(permissionEntrySchema) } },
  readModels,
});

export const replaceCollectionPermissions = defineContract({
  operationId: 'collections_permissions_update',
  method: 'put',
  path: '/api/collections/{id}/permissions/',
  summary: 'Replace the collection’s entries (MANAGE); they apply to its sub-collections and to the assets of all of them.',
  tag,
  side: 'command',
  authenticated: true,
  body: permissionReplaceSchema,
  bodyRequired: true,
  responses: { 200: { description: 'The entries now.', schema: z.array(permissionEntrySchema) } },
  readModels,
});

export const collectionContracts = [
  listCollections,
  createCollection,
  getCollection,
  updateCollection,
  deleteCollection,
  listCollectionAssets,
  attachCollectionAssets,
  detachCollectionAsset,
  listCollectionPermissions,
  replaceCollectionPermissions,
];
