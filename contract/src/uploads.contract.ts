import { storage } from '@cairn/domain';
import { defineContract } from '@cairn/platform';
import { z } from 'zod';
import { dateTime, uuid, uuidInput } from './fields.ts';
import { contentSchema } from './storage.contract.ts';

// Issue 25: uploads that go straight to storage (docs/storage.md "Direct uploads").

const wholeBytes = (min: number, max: number) =>
  z
    .number({ error: 'A whole number of bytes.' })
    .int('A whole number of bytes.')
    .min(min, `Must be at least ${min}.`)
    .max(max, `Must be at most ${max}.`);

export const uploadStartSchema = z
  .object({
    filename: z.string().min(1).max(storage.contentLimits.filename),
    size: wholeBytes(1, storage.uploadLimits.maxSize).describe('The exact size of the object in bytes: reserved on the allocation until the upload ends, and checked at completion.'),
    content_type: z.string().max(storage.contentLimits.contentType).optional(),
    sha256: z.string().max(64).optional().describe('The SHA-256 of the whole object (64 hexadecimal digits), checked at completion.'),
    repository_id: uuidInput.optional().describe('The repository to upload to, chosen as for content uploads: the owner must have an allocation there.'),
    part_size: wholeBytes(storage.uploadLimits.minPartSize, storage.uploadLimits.maxPartSize)
      .optional()
      .describe('Bytes per part (all but the last). Default 8 MiB, or larger when the object would have more than 10,000 parts.'),
  })
  .meta({ id: 'AssetContentUploadStart' });

export const uploadSchema = z
  .object({
    id: uuid.describe('Also the id of the content record the upload makes.'),
    asset_id: uuid,
    repository_id: uuid,
    allocation_id: uuid,
    key: z.string().describe("Under the asset's own prefix, `assets/<asset id>/`."),
    filename: z.string(),
    content_type: z.string(),
    size: z.number().int(),
    sha256: z.string().nullable(),
    part_size: z.number().int(),
    part_count: z.number().int(),
    status: z.enum(['open', 'completed', 'aborted']),
    end_reason: z.enum(storage.uploadEndReasons).nullable(),
    expires_at: dateTime.describe('An upload still open then is aborted: its parts removed, its reservation released.'),
    received_parts: z.array(z.object({ part_number: z.number().int(), size: z.number().int() })).describe('The parts the repository holds (open uploads only).'),
    missing_parts: z.array(z.number().int()).describe('The part numbers still to send (open uploads only).'),
    part_urls: z
      .array(z.object({ part_number: z.number().int(), size: z.number().int().describe('The exact Content-Length the URL accepts.'), url: z.string() }))
      .describe('PUT each part to its URL, in any order and in parallel: for the first 1,000 missing parts; ask again for the rest, or for fresh URLs.'),
    urls_expire_at: dateTime.nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'AssetContentUpload' });

const uploadModels = ['content-uploads', 'allocations'];

export const startUpload = defineContract({
  operationId: 'assets_content_uploads_create',
  method: 'post',
  path: '/api/assets/{id}/content/uploads/',
  summary:
    'Start a direct upload (WRITE_CONTENT): reserves the declared size on the allocation and answers part URLs (presigned S3 part URLs, or signed URLs of this service for fs); 409 `allocation_exceeded`, 423 when locked.',
  tag: 'content',
  side: 'command',
  authenticated: true,
  body: uploadStartSchema,
  bodyRequired: true,
  responses: { 201: { description: 'The upload, open, with URLs for its parts.', schema: uploadSchema } },
  errors: [423],
  readModels: uploadModels,
});

export const getUpload = defineContract({
  operationId: 'assets_content_uploads_retrieve',
  method: 'get',
  path: '/api/assets/{id}/content/uploads/{upload_id}/',
  summary: 'An upload with the parts that arrived, those missing, and fresh URLs for them (WRITE_CONTENT): how an interrupted upload resumes.',
  tag: 'content',
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The upload.', schema: uploadSchema, headers: ['Cache-Control'] } },
  readModels: uploadModels,
});

export const completeUpload = defineContract({
  operationId: 'assets_content_uploads_complete_create',
  method: 'post',
  path: '/api/assets/{id}/content/uploads/{upload_id}/complete/',
  summary:
    'Assemble the parts and record the object as content (WRITE_CONTENT): its size (and SHA-256 when declared) is measured at the repository before the allocation is charged; a mismatch is 400, the bytes removed and nothing charged; 409 while parts are missing.',
  tag: 'content',
  side: 'command',
  authenticated: true,
  responses: { 201: { description: 'The content record (its id is the upload’s).', schema: contentSchema } },
  errors: [423],
  readModels: ['asset-contents', ...uploadModels],
});

export const abortUpload = defineContract({
  operationId: 'assets_content_uploads_destroy',
  method: 'delete',
  path: '/api/assets/{id}/content/uploads/{upload_id}/',
  summary: 'Abort an open upload (WRITE_CONTENT): its parts are removed and its reservation released; 409 once completed.',
  tag: 'content',
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Aborted (or ended already).' } },
  readModels: uploadModels,
});

export const putUploadPart = defineContract({
  operationId: 'assets_content_uploads_parts_update',
  method: 'put',
  path: '/api/assets/{id}/content/uploads/{upload_id}/parts/',
  summary: 'One part of a direct upload to an fs repository, through a signed URL of the upload (no other credentials); a bad or expired signature is 404.',
  tag: 'content',
  side: 'command',
  authenticated: false,
  query: z.object({ part: z.string().max(6), expires: z.string().max(20), signature: z.string().max(100) }),
  rawBody: { description: 'The part’s bytes, exactly as many as the URL was issued for.' },
  responses: { 204: { description: 'The part is stored; sending it again replaces it.' } },
  readModels: [],
});

export const uploadContracts = [startUpload, getUpload, completeUpload, abortUpload, putUploadPart];
