import path from 'node:path';
import { isUuid, storage } from '@cairn/domain';
import { addContent, contentWriteSchema } from '@cairn/contract';
import { assertValidText, BlobTooLargeError, coerceFormBody, httpErrors, implement, newId, parseOrThrow, type RequestContext } from '@cairn/platform';
import { findContent, presentContent } from '@cairn/projections';
import { awaitReadModels, type CommandDeps } from '../deps.ts';
import { contentFieldErrors, openContentAsset } from './content-access.ts';
import { readUpload, type TextFields, type UploadPart } from './multipart-upload.ts';
import { digestUpload, recordDigest, uploadDigest } from './upload-digest.ts';
import { payerOf, recordContent, type Owner } from './record-content.ts';

type ContentWrite = { repository_id?: string | undefined; key: string; filename?: string | undefined; content_type?: string | undefined };

/**
 * Interface 4.3: a multipart body with a `file` part uploads bytes (streamed to the
 * repository, hashed on the way); a JSON or form body, or a multipart one without a file
 * part, records an object already in a repository (DECISIONS.md 8). Either way the record
 * and its allocation's charge are one append; bytes of a refused upload are removed.
 */
export const addContentRoute = (deps: CommandDeps) =>
  implement(addContent, async ({ params, body, context, req }) => {
    const { open } = await openContentAsset(deps, params['id'] ?? '', context, req, 'WRITE_CONTENT', true);
    const asset = { id: open.asset.id, owner: { ownerType: open.asset.ownerType, ownerId: open.asset.ownerId } };
    const contentId = newId(context);
    const { position, streamDigest } =
      req.bodyFormat === 'stream'
        ? await readUpload(
            req,
            {
              file: (fields, part) => upload(deps, context, asset, contentId, fields, part),
              record: async (fields) => ({ position: await reference(deps, context, asset, contentId, recordFields(fields)), streamDigest: recordDigest(fields) }),
            },
            deps.storage.idleTimeoutMs,
          )
        : { position: await reference(deps, context, asset, contentId, body), streamDigest: undefined };
    await awaitReadModels(deps, position, ['ContentAdded', 'AllocationCharged']);
    const row = await findContent(deps.db, asset.id, contentId);
    if (!row) throw httpErrors.notFound('Content not found.');
    const headers = { Location: `/api/assets/${asset.id}/content/${contentId}/` };
    return { status: 201, body: presentContent(row), position, headers, ...(streamDigest === undefined ? {} : { streamDigest }) };
  }, { digestStream: digestUpload });

type Target = { readonly id: string; readonly owner: Owner };

function repositoryField(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  if (!isUuid(value)) throw httpErrors.validation({ repository_id: ['Must be a UUID.'] });
  return value.toLowerCase();
}

/** A multipart record's text fields, checked as a form body of AssetContentWrite is. */
function recordFields(fields: TextFields): ContentWrite {
  const input = coerceFormBody(contentWriteSchema, { ...fields });
  assertValidText(input, 'body');
  return parseOrThrow(contentWriteSchema, input, 'body');
}

async function upload(deps: CommandDeps, context: RequestContext, asset: Target, contentId: string, fields: TextFields, part: UploadPart) {
  const filename = fieldChecked(() => storage.checkFilename(fields['filename'] || part.filename || 'upload'));
  const contentType = fieldChecked(() => storage.checkContentType(fields['content_type'] || part.mimeType || 'application/octet-stream'));
  const { allocation, store } = await payerOf(deps, context, asset.id, asset.owner, repositoryField(fields['repository_id']));
  const remaining = Math.max(0, Number(allocation.limit_bytes) - Number(allocation.used_bytes) - Number(allocation.reserved_bytes));
  const uploadLimit = deps.storage.uploadLimitBytes;
  const key = storage.uploadKeyOf(asset.id, contentId);
  let stored;
  try {
    // Past what the allocation has left, the upload stops early: the final charge decides anyway.
    stored = await store.put(key, part.stream, { maxBytes: Math.min(uploadLimit, remaining), contentType });
  } catch (error) {
    if (error instanceof BlobTooLargeError) throw remaining < uploadLimit ? storage.allocationErrors.exceeded(remaining) : httpErrors.payloadTooLarge(uploadLimit);
    throw error;
  }
  try {
    const position = await recordContent(deps, context, contentAdded(deps, asset, contentId, allocation, { key, filename, contentType, origin: 'upload', ...stored }));
    return { position, streamDigest: uploadDigest(fields, part, stored) };
  } catch (error) {
    await store.remove(key).catch(() => undefined);
    throw error;
  }
}

/**
 * A record of an object already in a repository (docs/storage.md): a key under the asset's
 * own prefix for WRITE_CONTENT holders (checked when the asset was opened), any other key
 * for system administrators only, since a record exposes the object to the asset's readers.
 * Size and SHA-256 are measured at the repository before the allocation is charged; a key
 * with no object is 404 naming `key`, like every reference in a body that names nothing.
 */
async function reference(deps: CommandDeps, context: RequestContext, asset: Target, contentId: string, body: ContentWrite) {
  const key = fieldChecked(() => storage.checkRecordKey(body.key, asset.id, context.caller?.isSystemAdmin === true));
  const filename = fieldChecked(() => storage.checkFilename(body.filename ?? path.posix.basename(key)));
  const contentType = fieldChecked(() => storage.checkContentType(body.content_type ?? 'application/octet-stream'));
  const { allocation, store } = await payerOf(deps, context, asset.id, asset.owner, body.repository_id?.toLowerCase() ?? null);
  const stored = await store.inspect(key);
  if (!stored) throw httpErrors.unknownReference('key', 'No object has this key in the repository.');
  return recordContent(deps, context, contentAdded(deps, asset, contentId, allocation, { key, filename, contentType, origin: 'reference', ...stored }));
}

type Described = { key: string; filename: string; contentType: string; origin: 'upload' | 'reference'; size: number; sha256: string };

/** The record's event: the object as described, paid for by the allocation. */
function contentAdded(deps: CommandDeps, asset: Target, contentId: string, allocation: { id: string; repository_id: string }, object: Described): storage.ContentAdded['data'] {
  return { id: contentId, assetId: asset.id, repositoryId: allocation.repository_id, allocationId: allocation.id, ...object, extractionQueued: deps.storage.extractionEnabled };
}

function fieldChecked<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    return contentFieldErrors(error);
  }
}
