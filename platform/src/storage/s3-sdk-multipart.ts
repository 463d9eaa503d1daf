import { AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, ListPartsCommand, S3ServiceException, UploadPartCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { MultipartGoneError, StorageUnavailableError, type MultipartRef, type MultipartStore, type StoredObject } from './blob-store.ts';

type Part = { readonly partNumber: number; readonly size: number; readonly etag: string };

/**
 * Direct uploads on S3: an S3 multipart upload whose parts clients send to presigned
 * UploadPart URLs. Each URL signs the part's exact Content-Length, so the bucket refuses a
 * part of any other length: a client cannot store more than it declared. Completing lists
 * the parts the bucket holds and completes with their ETags; the object is then read
 * through (`inspect`) to measure its size and SHA-256 at the repository.
 */
export function s3Multipart(client: S3Client, bucket: string, objectKey: (key: string) => string, inspect: (key: string) => Promise<StoredObject | null>): MultipartStore {
  const storageIdOf = (ref: MultipartRef) => {
    if (ref.storageUploadId === null) throw new MultipartGoneError();
    return ref.storageUploadId;
  };

  async function send<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof S3ServiceException && error.name === 'NoSuchUpload') throw new MultipartGoneError();
      throw new StorageUnavailableError(error);
    }
  }

  async function listAll(ref: MultipartRef): Promise<Part[]> {
    const parts: Part[] = [];
    let marker: string | undefined;
    for (;;) {
      const page = await send(() => client.send(new ListPartsCommand({ Bucket: bucket, Key: objectKey(ref.key), UploadId: storageIdOf(ref), MaxParts: 1000, ...(marker === undefined ? {} : { PartNumberMarker: marker }) })));
      for (const p of page.Parts ?? []) {
        if (p.PartNumber !== undefined && p.ETag !== undefined) parts.push({ partNumber: p.PartNumber, size: p.Size ?? 0, etag: p.ETag });
      }
      if (!page.IsTruncated || page.NextPartNumberMarker === undefined) break;
      marker = String(page.NextPartNumberMarker);
    }
    return parts.sort((a, b) => a.partNumber - b.partNumber);
  }

  return {
    async create(key, _uploadId, options) {
      const created = await send(() => client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: objectKey(key), ContentType: options.contentType })));
      if (!created.UploadId) throw new StorageUnavailableError(new Error('CreateMultipartUpload answered no UploadId'));
      return created.UploadId;
    },

    async partUrl(ref, partNumber, bytes, expiresInSeconds) {
      const command = new UploadPartCommand({ Bucket: bucket, Key: objectKey(ref.key), UploadId: storageIdOf(ref), PartNumber: partNumber, ContentLength: bytes });
      // Content-Length is a signed header of the URL (the presigner signs every header the request has).
      return getSignedUrl(client, command, { expiresIn: expiresInSeconds });
    },

    writePart: async () => {
      throw new Error('parts of an s3 upload go to its presigned URLs');
    },

    async listParts(ref) {
      try {
        return (await listAll(ref)).map(({ partNumber, size }) => ({ partNumber, size }));
      } catch (error) {
        // As on fs: an upload that is gone holds no parts (its end is the service's to record).
        if (error instanceof MultipartGoneError) return [];
        throw error;
      }
    },

    async complete(ref, partCount) {
      const parts = (await listAll(ref)).filter((p) => p.partNumber <= partCount);
      await send(() =>
        client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: objectKey(ref.key), UploadId: storageIdOf(ref), MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.partNumber, ETag: p.etag })) } })),
      );
      const stored = await inspect(ref.key);
      if (!stored) throw new MultipartGoneError();
      return stored;
    },

    async abort(ref) {
      if (ref.storageUploadId === null) return;
      try {
        await send(() => client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: objectKey(ref.key), UploadId: storageIdOf(ref) })));
      } catch (error) {
        if (!(error instanceof MultipartGoneError)) throw error;
      }
    },
  };
}
