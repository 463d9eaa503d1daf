import { downloadContent } from '@cairn/contract';
import { attachmentHeader, BlobNotFoundError, downloadSignatureValid, servedContentType, httpErrors, implement } from '@cairn/platform';
import { findContent } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

/**
 * The fs download link of the location route: the signature is the credential, so a
 * browser can follow it. A bad or expired link is 404, like a record that is gone.
 */
export const downloadContentRoute = (deps: QueryDeps) =>
  implement(downloadContent, async ({ params, query }) => {
    const assetId = params['id'] ?? '';
    const contentId = params['content_pk'] ?? '';
    if (!downloadSignatureValid(deps.storage.downloadKey, assetId, contentId, query.expires, query.signature, Math.floor(Date.now() / 1000))) {
      throw httpErrors.notFound('This download link is not valid, or has expired.');
    }
    const row = await findContent(deps.db, assetId, contentId);
    const store = row ? await deps.storage.stores.forRepository(row.repository_id) : null;
    if (!row || !store) throw httpErrors.notFound('Content not found.');
    try {
      // Headers are made before the store is opened: nothing may fail between the open and the answer.
      const headers = { 'Content-Length': String(row.size), 'Content-Disposition': attachmentHeader(row.filename), 'Cache-Control': 'private, no-store' };
      const contentType = servedContentType(row.content_type);
      const body = await store.open(row.key);
      return { status: 200, stream: { body, contentType }, headers };
    } catch (error) {
      if (error instanceof BlobNotFoundError) throw httpErrors.notFound('The bytes of this content are not in its repository.');
      throw error;
    }
  });
