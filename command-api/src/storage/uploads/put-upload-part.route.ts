import { storage } from '@cairn/domain';
import { putUploadPart } from '@cairn/contract';
import { httpErrors, implement, MultipartGoneError, partSignatureValid, PartSizeError } from '@cairn/platform';
import { findUpload, multipartRefOf, uploadPlanOf } from '@cairn/projections';
import type { Request } from 'express';
import type { CommandDeps } from '../../deps.ts';

const badLink = () => httpErrors.notFound('This upload link is not valid, or has expired.');
const wrongLength = (expected: number, received: number) =>
  received > expected ? httpErrors.payloadTooLarge(expected) : httpErrors.badRequest('part_size_mismatch', `This part is ${expected} bytes; ${received} arrived. Send it again whole.`);

/**
 * A part of a direct upload to an fs repository (docs/storage.md "Direct uploads"). The
 * signed URL is the only credential (it names the asset, the upload, the part and the
 * expiry): a forged, altered or expired one is 404 like a download link's, before anything
 * is read. The part must be exactly its length in the plan (413 past it, 400 short of it,
 * nothing kept), so the parts on disk never exceed the size reserved for them.
 */
export const putUploadPartRoute = (deps: CommandDeps) =>
  implement(putUploadPart, async ({ params, query, req }) => {
    const assetId = params['id'] ?? '';
    const uploadId = params['upload_id'] ?? '';
    const link = { assetId, uploadId, part: query.part, expires: query.expires, signature: query.signature };
    if (!partSignatureValid(deps.storage.uploads.linkKey, link, Math.floor(Date.now() / 1000))) throw badLink();
    const upload = await findUpload(deps.db, assetId, uploadId);
    const store = upload ? await deps.storage.stores.forRepository(upload.repository_id) : null;
    if (!upload || store?.kind !== 'fs') throw badLink();
    if (upload.status !== 'open') throw storage.uploadErrors.ended();
    if (Date.now() >= upload.expires_at.getTime()) throw storage.uploadErrors.expired();
    const partNumber = Number(query.part);
    const bytes = storage.partBytes(uploadPlanOf(upload), partNumber);
    if (bytes === 0) throw badLink();
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) !== bytes) throw wrongLength(bytes, Number(declared));

    watchIdle(req, deps.storage.idleTimeoutMs ?? 60_000);
    try {
      await store.multipart.writePart(multipartRefOf(upload), partNumber, req, bytes);
    } catch (error) {
      if (error instanceof PartSizeError) throw wrongLength(error.expected, error.received);
      if (error instanceof MultipartGoneError) throw storage.uploadErrors.ended();
      throw error;
    }
    return { status: 204, position: null };
  });

/**
 * The part's stream has one owner, the store's pipeline, which removes what it wrote when the
 * body fails: a client gone before this point, or one that sends nothing for `idleMs`, fails
 * it (the connection is cut), as for uploads through the service (docs/storage.md "Streams").
 */
function watchIdle(req: Request, idleMs: number): void {
  if (!req.readableEnded && (req.destroyed || req.socket.destroyed)) throw new Error('the client closed the connection mid-upload');
  req.setTimeout(idleMs, () => req.socket.destroy());
  req.once('end', () => req.socket.setTimeout(0));
}
