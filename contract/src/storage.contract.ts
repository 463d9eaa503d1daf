import { storage } from '@cairn/domain';
import { defineContract } from '@cairn/platform';
import { z } from 'zod';
import { dateTime, uuid, uuidInput } from './fields.ts';

// Interface 4.2 (allocations) and 4.3 (content, location, extraction, migrations);
// DECISIONS.md 4 names the bodies; docs/storage.md has the rest.

export const repositorySchema = z
  .object({
    id: uuid,
    name: z.string(),
    kind: z.enum(['fs', 's3']),
    endpoint: z.string().optional(),
    bucket: z.string().optional(),
    prefix: z.string().optional(),
    region: z.string().optional(),
    created_at: dateTime,
  })
  .meta({ id: 'Repository' });

export const allocationSchema = z
  .object({
    id: uuid,
    owner_type: z.enum(storage.allocationOwnerTypes),
    owner_id: uuid,
    repository_id: uuid,
    limit_bytes: z.number().int(),
    used_bytes: z.number().int(),
    reserved_bytes: z.number().int().describe('Held for direct uploads still open: their declared sizes (docs/storage.md).'),
    content_count: z.number().int(),
    is_default: z.boolean(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Allocation' });

const limitBytes = z
  .number({ error: 'A whole number of bytes.' })
  .int('A whole number of bytes.')
  .min(0, 'Must be at least 0.')
  .max(storage.maxLimitBytes, `Must be at most ${storage.maxLimitBytes}.`);

export const allocationCreateSchema = z
  .object({ owner_type: z.enum(storage.allocationOwnerTypes), owner_id: uuidInput, repository_id: uuidInput, limit_bytes: limitBytes })
  .meta({ id: 'AllocationCreate' });
export const patchedAllocationLimitSchema = z.object({ limit_bytes: limitBytes.optional() }).meta({ id: 'PatchedAllocationLimit' });

export const contentSchema = z
  .object({
    id: uuid,
    asset_id: uuid,
    repository_id: uuid,
    allocation_id: uuid,
    key: z.string(),
    filename: z.string(),
    size: z.number().int(),
    sha256: z.string(),
    content_type: z.string(),
    origin: z.enum(['upload', 'reference']),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    metadata_status: z.enum(['pending', 'succeeded', 'failed', 'not_extracted']),
    metadata_error: z.string().nullable(),
    metadata_extracted_at: dateTime.nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'AssetContent' });

/**
 * The JSON or form body, or a multipart one without a file part: a record of an object
 * already in a repository (DECISIONS.md 8: WRITE_CONTENT for a key under
 * `assets/<asset id>/`, a system administrator for any other). A multipart body with a
 * `file` part is an upload instead, with optional `repository_id`, `filename` and
 * `content_type` fields before it (docs/storage.md).
 */
export const contentWriteSchema = z
  .object({
    repository_id: uuidInput.optional(),
    key: z
      .string()
      .min(1)
      .max(storage.contentLimits.key)
      .describe("The object's key in the repository: under `assets/<asset id>/` with WRITE_CONTENT; any other key needs a system administrator."),
    filename: z.string().min(1).max(storage.contentLimits.filename).optional(),
    content_type: z.string().max(storage.contentLimits.contentType).optional(),
  })
  .meta({ id: 'AssetContentWrite' });

export const locationSchema = z
  .object({
    asset_id: uuid,
    content: z.array(
      z.object({
        content_id: uuid,
        repository_id: uuid,
        repository_name: z.string(),
        kind: z.enum(['fs', 's3']),
        key: z.string(),
        filename: z.string(),
        size: z.number().int(),
        url: z.string().nullable().describe('A short-lived download URL; null without READ_CONTENT.'),
        expires_at: dateTime.nullable(),
      }),
    ),
  })
  .meta({ id: 'AssetLocation' });

export const migrationSchema = z
  .object({
    id: uuid,
    asset_id: uuid,
    source_repository_id: uuid.nullable(),
    target_repository_id: uuid,
    status: z.enum(['pending', 'running', 'succeeded', 'failed']),
    attempts: z.number().int(),
    error: z.string().nullable(),
    moved_content: z.number().int().nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'AssetBucketMigration' });

export const migrationStartSchema = z.object({ target_repository_id: uuidInput }).meta({ id: 'AssetBucketMigrationStart' });

const allocationModels = ['allocations'];
const contentModels = ['asset-contents', 'allocations'];
const migrationModels = ['asset-migrations', 'assets'];

export const listRepositories = defineContract({
  operationId: 'repositories_list',
  method: 'get',
  path: '/api/repositories/',
  summary: 'The storage repositories content can be kept in (made by operators: `cairn repositories create`).',
  tag: 'repositories',
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The repositories, by name.', schema: z.array(repositorySchema) } },
  readModels: ['repositories'],
});

export const listAllocations = defineContract({
  operationId: 'allocations_list',
  method: 'get',
  path: '/api/allocations/',
  summary: 'The allocations the caller sees; `organization_id` needs a system administrator or an admin of that organization.',
  tag: 'allocations',
  side: 'query',
  authenticated: true,
  query: z.object({
    organization_id: uuidInput.optional().describe("Every member's allocations, its projects', and the organization's own."),
    owner_id: uuidInput.optional(),
    owner_type: z.enum(storage.allocationOwnerTypes).optional(),
    repository_id: uuidInput.optional(),
  }),
  responses: { 200: { description: 'The allocations, oldest first.', schema: z.array(allocationSchema) } },
  readModels: allocationModels,
});

export const createAllocation = defineContract({
  operationId: 'allocations_create',
  method: 'post',
  path: '/api/allocations/',
  summary: 'Grant an allocation (a system administrator, or an admin of the organization that holds the owner).',
  tag: 'allocations',
  side: 'command',
  authenticated: true,
  body: allocationCreateSchema,
  bodyRequired: true,
  responses: { 201: { description: 'The allocation.', schema: allocationSchema } },
  readModels: allocationModels,
});

export const getAllocation = defineContract({
  operationId: 'allocations_retrieve',
  method: 'get',
  path: '/api/allocations/{id}/',
  summary: 'One allocation with its usage.',
  tag: 'allocations',
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The allocation.', schema: allocationSchema } },
  readModels: allocationModels,
});

export const updateAllocation = defineContract({
  operationId: 'allocations_partial_update',
  method: 'patch',
  path: '/api/allocations/{id}/',
  summary: 'Change the limit (it may go below what is used: new content is then refused).',
  tag: 'allocations',
  side: 'command',
  authenticated: true,
  body: patchedAllocationLimitSchema,
  responses: { 200: { description: 'The allocation.', schema: allocationSchema } },
  readModels: allocationModels,
});

export const deleteAllocation = defineContract({
  operationId: 'allocations_destroy',
  method: 'delete',
  path: '/api/allocations/{id}/',
  summary: 'Remove an allocation; 409 while it pays for content.',
  tag: 'allocations',
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Removed.' } },
  readModels: allocationModels,
});

export const makeDefaultAllocation = defineContract({
  operationId: 'allocations_default_create',
  method: 'post',
  path: '/api/allocations/{id}/default/',
  summary: "Make this allocation its owner's one default (a system administrator; for a project's allocation also its admins and the admins of its organization).",
  tag: 'allocations',
  side: 'command',
  authenticated: true,
  responses: { 200: { description: 'The allocation.', schema: allocationSchema } },
  readModels: allocationModels,
});

export const listContents = defineContract({
  operationId: 'assets_content_list',
  method: 'get',
  path: '/api/assets/{id}/content/',
  summary: 'The asset’s content records, oldest first (READ_CONTENT).',
  tag: 'content',
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The content records.', schema: z.array(contentSchema) } },
  readModels: contentModels,
});

export const addContent = defineContract({
  operationId: 'assets_content_create',
  method: 'post',
  path: '/api/assets/{id}/content/',
  summary:
    'Upload bytes (multipart, a `file` part) or record an object already in a repository (JSON, form, or multipart without a file part: a key under `assets/<asset id>/`, any other key for system administrators); WRITE_CONTENT; 423 when locked; 409 `allocation_exceeded`.',
  tag: 'content',
  side: 'command',
  authenticated: true,
  body: contentWriteSchema,
  bodyRequired: true,
  streamsMultipart: true,
  responses: { 201: { description: 'The content record.', schema: contentSchema } },
  // A locked asset (the other statuses are derived: documented-answers.ts).
  errors: [423],
  readModels: contentModels,
});

export const getContent = defineContract({
  operationId: 'assets_content_retrieve',
  method: 'get',
  path: '/api/assets/{id}/content/{content_pk}/',
  summary: 'One content record with its extracted metadata (READ_CONTENT).',
  tag: 'content',
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The content record.', schema: contentSchema } },
  readModels: contentModels,
});

export const deleteContent = defineContract({
  operationId: 'assets_content_destroy',
  method: 'delete',
  path: '/api/assets/{id}/content/{content_pk}/',
  summary: 'Remove the record, and its bytes once nothing references them (WRITE_CONTENT; 423 when locked).',
  tag: 'content',
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Removed.' } },
  // A locked asset (the other statuses are derived: documented-answers.ts).
  errors: [423],
  readModels: contentModels,
});

export const extractContentMetadata = defineContract({
  operationId: 'assets_content_extract_metadata_create',
  method: 'post',
  path: '/api/assets/{id}/content/{content_pk}/extract-metadata/',
  summary: 'Extract metadata now, forcing a new extraction (WRITE_METADATA); 503 when extraction is disabled here.',
  tag: 'content',
  side: 'command',
  authenticated: true,
  responses: { 200: { description: 'The content record with the new metadata.', schema: contentSchema } },
  readModels: contentModels,
});

export const getLocation = defineContract({
  operationId: 'assets_location_retrieve',
  method: 'get',
  path: '/api/assets/{id}/location/',
  summary: 'Where the asset’s bytes are; with READ_CONTENT, a short-lived download URL per record.',
  tag: 'content',
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The location.', schema: locationSchema } },
  readModels: contentModels,
});

export const downloadContent = defineContract({
  operationId: 'assets_content_download_retrieve',
  method: 'get',
  path: '/api/assets/{id}/content/{content_pk}/download/',
  summary: 'The bytes of fs content, through a signed link from the location (no other credentials).',
  tag: 'content',
  side: 'query',
  authenticated: false,
  query: z.object({ expires: z.string().max(20), signature: z.string().max(100) }),
  responses: { 200: { description: 'The bytes.', headers: ['Content-Disposition', 'Cache-Control'] } },
  readModels: ['asset-contents'],
});

export const listMigrations = defineContract({
  operationId: 'assets_migrations_list',
  method: 'get',
  path: '/api/assets/{id}/migrations/',
  summary: 'The asset’s migration history, oldest first.',
  tag: 'migrations',
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The migrations.', schema: z.array(migrationSchema) } },
  readModels: migrationModels,
});

/** What the `Location` of a started migration names (a 201 points at the resource it made). */
export const getMigration = defineContract({
  operationId: 'assets_migrations_retrieve',
  method: 'get',
  path: '/api/assets/{id}/migrations/{mid}/',
  summary: 'One migration of the asset (READ_METADATA, as the history).',
  tag: 'migrations',
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The migration.', schema: migrationSchema } },
  readModels: migrationModels,
});

export const startMigration = defineContract({
  operationId: 'assets_migrations_create',
  method: 'post',
  path: '/api/assets/{id}/migrations/',
  summary: 'Move the asset’s content to another repository in the background (WRITE_CONTENT).',
  tag: 'migrations',
  side: 'command',
  authenticated: true,
  body: migrationStartSchema,
  bodyRequired: true,
  responses: { 201: { description: 'The migration, pending.', schema: migrationSchema } },
  // A locked asset (the other statuses are derived: documented-answers.ts).
  errors: [423],
  readModels: migrationModels,
});

export const retryMigration = defineContract({
  operationId: 'assets_migrations_retry_create',
  method: 'post',
  path: '/api/assets/{id}/migrations/{mid}/retry/',
  summary: 'Run a failed migration again (WRITE_CONTENT); 409 when it has not failed.',
  tag: 'migrations',
  side: 'command',
  authenticated: true,
  responses: { 200: { description: 'The migration, pending.', schema: migrationSchema } },
  // A locked asset (the other statuses are derived: documented-answers.ts).
  errors: [423],
  readModels: migrationModels,
});

export const storageContracts = [
  listRepositories,
  listAllocations,
  createAllocation,
  getAllocation,
  updateAllocation,
  deleteAllocation,
  makeDefaultAllocation,
  listContents,
  addContent,
  getContent,
  deleteContent,
  extractContentMetadata,
  getLocation,
  downloadContent,
  listMigrations,
  getMigration,
  startMigration,
  retryMigration,
];
