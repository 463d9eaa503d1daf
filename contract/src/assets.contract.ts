import { assets } from '@cairn/domain';
import { defineContract } from '@cairn/platform';
import { z } from 'zod';
import { dateTime, optionalText, queryBoolean, queryInteger, requiredText, textList, uuid, uuidInput } from './fields.ts';

// Interface 4.3 and 2.5; DECISIONS.md 2 and 4 name the bodies; docs/assets.md has the rest.
const limits = assets.assetLimits;
const uuidField = uuidInput;

export const defaultPageSize = 100;
export const maxPageSize = 1000;

const tags = textList(limits.tagLength, limits.tagCount);

const metadata = z
  .record(z.string(), z.unknown(), { error: 'Must be a JSON object.' })
  .superRefine((value, ctx) => {
    const problem = assets.metadataProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .describe(`A JSON object: strings, numbers, booleans, lists and nested objects; at most ${limits.metadataDepth} levels deep, ${limits.metadataBytes} bytes as JSON, keys of at most ${limits.metadataKeyLength} characters.`);

const ownerType = z.enum(assets.ownerTypes, { error: 'Must be one of user, project, organization.' });

export const assetSchema = z
  .object({
    id: uuid,
    title: z.string(),
    alias: z.string(),
    description: z.string(),
    record_type: z.string(),
    tags: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
    owner_type: ownerType,
    owner_id: uuid,
    collection_ids: z.array(uuid).describe('The collections holding the asset.'),
    is_locked: z.boolean(),
    locked_by: uuid.nullable().describe('Who locked it, while locked.'),
    locked_at: dateTime.nullable(),
    lock_reason: z.string().describe('Why it is locked; empty when unlocked.'),
    is_starred: z.boolean().describe('Whether the caller starred it.'),
    is_migrating: z.boolean(),
    effective_flags: z.int().min(0).describe("The caller's permission flags on the asset (bits of GET /api/permissions/flags/)."),
    access_scope: z
      .enum(assets.accessScopes)
      .describe('Why the caller sees the asset, most direct reason first: `direct` (owner or a grant to the caller), `project`, `group`, `organization`, `public`, or `admin` (a system administrator with no other reason).'),
    created_by: uuid.nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Asset' });

export const assetWriteSchema = z
  .object({
    title: requiredText(limits.title),
    alias: optionalText(limits.alias),
    description: optionalText(limits.description),
    record_type: optionalText(limits.recordType).describe('Free text, such as `dataset`; empty by default.'),
    tags: tags.optional().transform((v) => v ?? []),
    metadata: metadata.optional().transform((v) => v ?? {}),
    owner_type: ownerType.optional().describe('Default: `user` (the caller).'),
    owner_id: uuidField.optional().describe('Default: the caller. A project needs the caller as its admin or member; an organization, as its member.'),
    collection_id: uuidField.nullish().describe('A collection to put the asset in (WRITE_METADATA there).'),
  })
  .meta({ id: 'AssetWrite' });

export const patchedAssetSchema = z
  .object({
    title: requiredText(limits.title).optional(),
    alias: optionalText(limits.alias).optional(),
    description: optionalText(limits.description).optional(),
    record_type: optionalText(limits.recordType).optional(),
    tags: tags.optional(),
    metadata: metadata.optional().describe('Replaces the whole metadata object.'),
    owner_type: ownerType.optional().describe('With `owner_id`: gives the asset away (MANAGE).'),
    owner_id: uuidField.optional(),
  })
  .meta({ id: 'PatchedAssetPatch' });

export const assetLockSchema = z
  .object({
    locked: z.boolean(),
    reason: optionalText(1000),
  })
  .meta({ id: 'AssetLock' });

export const permissionEntrySchema = z
  .object({
    subject: z.object({ id: uuid.nullable(), subject_type: z.enum(assets.subjectTypes), name: z.string(), email: z.string() }),
    flags: z.int().min(1),
  })
  .meta({ id: 'PermissionEntry' });

export const permissionWriteSchema = z
  .object({
    flags: z.int({ error: 'Must be an integer.' }).min(0, 'Must be 0 or more.').max(511, 'Must be a sum of the bits of GET /api/permissions/flags/.'),
    subject_type: z.enum(assets.subjectTypes, { error: 'Must be one of user, group, organization, project, public.' }),
    subject_id: uuidField.nullish().describe('The subject; absent or null for `public`.'),
  })
  .meta({ id: 'PermissionWrite' });

const permissionList = z.array(permissionWriteSchema, { error: 'Must be a list of permission entries.' }).max(1000, 'Ensure there are no more than 1000 entries.');
const assetIds = z.array(uuidField, { error: 'Must be a list of asset ids.' }).min(1, 'Name at least one asset.').max(1000, 'Ensure there are no more than 1000 assets.');

export const permissionReplaceSchema = z.object({ permissions: permissionList }).meta({ id: 'PermissionReplace' });
export const bulkMergeSchema = z.object({ asset_ids: assetIds, permissions: permissionList }).meta({ id: 'AssetPermissionBulkMerge' });
export const intersectionSchema = z.object({ asset_ids: assetIds }).meta({ id: 'AssetPermissionIntersectionRequest' });

/** `limit`: a number, clamped to 1..1000 (reported in X-Page-Limit); anything else is 400. */
export const pageLimit = queryInteger((n) => Math.min(maxPageSize, Math.max(1, n)))
  .default(defaultPageSize)
  .describe(`Assets per page: default ${defaultPageSize}, clamped to 1..${maxPageSize}.`);

// Its length is checked with the rest of it: any cursor this service did not issue is 400 `invalid_cursor`.
const cursor = z.string().optional().describe('The X-Next-Cursor of the previous page.');
const repeated = (max: number) =>
  z
    .union([z.string().max(max), z.array(z.string().max(max)).max(50)])
    .optional()
    .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]));

export const accessScopeFilters = ['home', ...assets.accessScopes] as const;

export const assetListQuery = z.object({
  access_scope: z
    .enum(accessScopeFilters, { error: `Must be one of ${accessScopeFilters.join(', ')}.` })
    .optional()
    .describe('`home`: assets the caller reaches directly, through an organization, or publicly; any other value: assets whose `access_scope` is exactly that.'),
  collection_id: uuidField.optional(),
  cursor,
  limit: pageLimit,
  locked: queryBoolean.optional().describe('Only locked (`true`) or unlocked (`false`) assets; `1`, `yes`, `on`, `0`, `no`, `off` and any case are accepted too.'),
  metadata: repeated(1000).describe('Repeatable: `key:value` (the value at key equals, or a list there holds, value) or bare `key` (present); all must match.'),
  ordering: z.unknown().optional().meta({ deprecated: true, description: 'Deprecated and ignored (interface 4.3.1): the order is always -is_starred, -created_at, id.' }),
  owner_id: uuidField.optional(),
  owner_type: ownerType.optional(),
  q: z.string().max(255).optional().describe('Case-insensitive substring of the title or the alias.'),
  record_type: z.string().max(1000).optional().describe('Comma-separated: any of these.'),
  tags: z.string().max(5000).optional().describe('Comma-separated: all of these.'),
  title: repeated(limits.title).describe('Repeatable: exactly this title (any of the values).'),
  title_prefix: z.string().max(limits.title).optional().describe('Case-insensitive prefix of the title.'),
});

export const assetQueryParams = z.object({ cursor, limit: pageLimit });

export const assetQuerySchema = z
  .object({
    where: z
      .unknown()
      .describe(
        'COND: `{"and": [COND...]}`, `{"or": [COND...]}`, `{"not": COND}` or `{"field": F, "op": OP, "value": V}`; F is title, alias, record_type, tags, owner_id, owner_type, created_at, updated_at, is_locked, collection_id or metadata.KEY (dots go deeper); OP is eq, ne, in, exists, gt, gte, lt, lte, prefix, contains (docs/asset-query.md).',
      ),
  })
  .meta({ id: 'AssetQueryRequest' });

const pageHeaders = 'Headers: X-Page-Limit (the page size used), X-Has-More, X-Next-Cursor (when more may follow).';
const tag = 'assets';
// Visibility reads the caller's groups, organizations and projects.
const readModels = ['assets', 'identity', 'groups', 'projects'];

export const listAssets = defineContract({
  operationId: 'assets_list',
  method: 'get',
  path: '/api/assets/',
  summary: 'List the assets the caller may read (READ_METADATA): the caller’s starred ones first, then newest first, then by id; keyset-paginated.',
  tag,
  side: 'query',
  authenticated: true,
  query: assetListQuery,
  responses: { 200: { description: `A page of assets. ${pageHeaders}`, schema: z.array(assetSchema) } },
  // A costly read: a few at a time per caller (docs/asset-query.md).
  errors: [429],
  readModels,
});

export const createAsset = defineContract({
  operationId: 'assets_create',
  method: 'post',
  path: '/api/assets/',
  summary: 'Create an asset, owned by the caller unless another owner is named.',
  tag,
  side: 'command',
  authenticated: true,
  body: assetWriteSchema,
  bodyRequired: true,
  responses: { 201: { description: 'Created.', schema: assetSchema } },
  readModels,
});

export const getAsset = defineContract({
  operationId: 'assets_retrieve',
  method: 'get',
  path: '/api/assets/{id}/',
  summary: 'Read one asset (READ_METADATA).',
  tag,
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The asset.', schema: assetSchema } },
  readModels,
});

export const updateAsset = defineContract({
  operationId: 'assets_partial_update',
  method: 'patch',
  path: '/api/assets/{id}/',
  summary: 'Change an asset’s fields (WRITE_METADATA) or owner (MANAGE); 423 while locked.',
  tag,
  side: 'command',
  authenticated: true,
  body: patchedAssetSchema,
  responses: { 200: { description: 'The changed asset.', schema: assetSchema } },
  // A locked asset (the other statuses are derived: documented-answers.ts).
  errors: [423],
  readModels,
});

export const deleteAsset = defineContract({
  operationId: 'assets_destroy',
  method: 'delete',
  path: '/api/assets/{id}/',
  summary: 'Delete an asset (DELETE); 423 while locked.',
  tag,
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Deleted.' } },
  // A locked asset (the other statuses are derived: documented-answers.ts).
  errors: [423],
  readModels,
});

export const lockAsset = defineContract({
  operationId: 'assets_lock_create',
  method: 'post',
  path: '/api/assets/{id}/lock/',
  summary: 'Lock or unlock an asset (MANAGE). While locked, its fields, metadata, content and relationships cannot change and it cannot be deleted (423); notes stay writable.',
  tag,
  side: 'command',
  authenticated: true,
  body: assetLockSchema,
  bodyRequired: true,
  responses: { 200: { description: 'The asset.', schema: assetSchema } },
  readModels,
});

export const starAsset = defineContract({
  operationId: 'assets_star_create',
  method: 'post',
  path: '/api/assets/{id}/star/',
  summary: 'Star the asset for the caller.',
  tag,
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Starred (also when it already was).' } },
  readModels,
});

export const unstarAsset = defineContract({
  operationId: 'assets_star_destroy',
  method: 'delete',
  path: '/api/assets/{id}/star/',
  summary: 'Remove the caller’s star from the asset.',
  tag,
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Not starred (also when it was not).' } },
  readModels,
});

export const listAssetPermissions = defineContract({
  operationId: 'assets_permissions_list',
  method: 'get',
  path: '/api/assets/{id}/permissions/',
  summary: 'The asset’s permission entries, subjects resolved to name and e-mail (READ_METADATA).',
  tag,
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The entries.', schema: z.array(permissionEntrySchema) } },
  readModels,
});

export const replaceAssetPermissions = defineContract({
  operationId: 'assets_permissions_update',
  method: 'put',
  path: '/api/assets/{id}/permissions/',
  summary: 'Replace the asset’s permission entries (MANAGE).',
  tag,
  side: 'command',
  authenticated: true,
  body: permissionReplaceSchema,
  bodyRequired: true,
  responses: { 200: { description: 'The entries now.', schema: z.array(permissionEntrySchema) } },
  readModels,
});

export const bulkMergeAssetPermissions = defineContract({
  operationId: 'assets_permissions_bulk_merge',
  method: 'post',
  path: '/api/assets/permissions/bulk-merge/',
  summary: 'Merge entries into every listed asset (MANAGE on each): all or nothing. An entry replaces the flags of its subject; flags 0 removes the subject.',
  tag,
  side: 'command',
  authenticated: true,
  body: bulkMergeSchema,
  bodyRequired: true,
  responses: { 204: { description: 'Merged into every asset.' } },
  readModels,
});

export const assetPermissionIntersection = defineContract({
  operationId: 'assets_permissions_intersection',
  method: 'post',
  path: '/api/assets/permissions/intersection/',
  summary: 'The entries every listed asset has (READ_METADATA on each), each with the flags they all share.',
  tag,
  side: 'query',
  authenticated: true,
  body: intersectionSchema,
  bodyRequired: true,
  responses: { 200: { description: 'The shared entries.', schema: z.array(permissionEntrySchema) } },
  readModels,
});

export const queryAssets = defineContract({
  operationId: 'assets_query',
  method: 'post',
  path: '/api/assets/query/',
  summary: 'Find assets with a structured condition (docs/asset-query.md), in the listing’s order and pages.',
  tag,
  side: 'query',
  authenticated: true,
  query: assetQueryParams,
  body: assetQuerySchema,
  bodyRequired: true,
  responses: {
    200: {
      description: `A page of assets. ${pageHeaders} X-Post-Filter: true when conditions were checked row by row; X-Scan-Cap-Hit and X-Scan-Scanned when that scan stopped at its cap (the page may then be empty while X-Has-More is true).`,
      schema: z.array(assetSchema),
      headers: ['X-Post-Filter', 'X-Scan-Cap-Hit', 'X-Scan-Scanned'],
    },
  },
  // A costly read: a few at a time per caller (docs/asset-query.md).
  errors: [429],
  readModels,
});

export const assetContracts = [
  listAssets,
  createAsset,
  getAsset,
  updateAsset,
  deleteAsset,
  lockAsset,
  starAsset,
  unstarAsset,
  listAssetPermissions,
  replaceAssetPermissions,
  bulkMergeAssetPermissions,
  assetPermissionIntersection,
  queryAssets,
];
