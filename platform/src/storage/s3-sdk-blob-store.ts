import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, GetObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assertSafeKey, BlobNotFoundError, StorageUnavailableError, type BlobStore, type RepositoryLocation, type S3Credentials, type StoredObject } from './blob-store.ts';
import { attachmentHeader } from './content-headers.ts';
import { MeasuringStream } from './measuring-stream.ts';
import { s3Multipart } from './s3-sdk-multipart.ts';

type S3Location = Extract<RepositoryLocation, { kind: 's3' }>;

// Multipart parts are held in memory while they upload: about (QUEUE_SIZE + 1) × part size
// per write, whatever the object's size.
const MIN_PART_SIZE = 8 * 1024 * 1024;
const MAX_PARTS = 10_000;
const QUEUE_SIZE = 4;

/**
 * Content bytes in an S3-compatible bucket, under the location's prefix. A write is one
 * PutObject, or a multipart upload that is aborted on failure: the object appears only when
 * the upload completes, so a reader never sees half an object.
 */
export function sdkS3BlobStore(location: S3Location, credentials: S3Credentials): BlobStore {
  const client = new S3Client({
    endpoint: location.endpoint,
    // The SDK refuses an empty region; S3-compatible servers (MinIO, s3rver) sign with this one.
    region: location.region === '' ? 'us-east-1' : location.region,
    // Path-style (`endpoint/bucket/key`) works on every S3-compatible server; virtual-host
    // style needs DNS for each bucket.
    forcePathStyle: true,
    // null: the SDK's default chain (environment, profile, instance role).
    ...(credentials === null ? {} : { credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey } }),
    // The SDK's default since 3.729 adds CRC32 trailers (aws-chunked bodies) that many
    // S3-compatible servers reject or store verbatim; we hash the bytes ourselves.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // An unreachable endpoint fails in seconds: 3 attempts of a 5 s connect at most. The idle
    // timeout ends a request whose server stopped answering (and a download left unread that long).
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 5_000, socketTimeout: 60_000 },
  });
  const prefix = location.prefix.replace(/^\/+|\/+$/g, '');
  const objectKey = (key: string) => {
    assertSafeKey(key);
    return prefix === '' ? key : `${prefix}/${key}`;
  };

  async function get(key: string): Promise<Readable | null> {
    try {
      const { Body } = await client.send(new GetObjectCommand({ Bucket: location.bucket, Key: objectKey(key) }));
      if (!(Body instanceof Readable)) throw new Error(`GetObject of ${key} returned no Node.js stream`);
      return Body;
    } catch (error) {
      if (isMissingObject(error)) return null;
      throw new StorageUnavailableError(error);
    }
  }

  async function inspect(key: string): Promise<StoredObject | null> {
    const body = await get(key);
    if (body === null) return null;
    const measuring = new MeasuringStream();
    await pipeline(body, measuring, async function (source) {
      for await (const _ of source);
    });
    return { size: measuring.size, sha256: measuring.digest() };
  }

  return {
    kind: 's3',

    async put(key, body, options = {}) {
      const Key = objectKey(key);
      const measuring = new MeasuringStream(options.maxBytes);
      // Not `measuring` itself: lib-storage takes a Body's `size` property for its length.
      const feed = new PassThrough();
      // A body that fails, or grows past maxBytes, destroys the streams with that error, and the
      // upload meets it reading its next part; pipeline's rejection repeats it, so it is dropped.
      void pipeline(body, measuring, feed).catch(() => undefined);
      const maxBytes = options.maxBytes;
      const upload = new Upload({
        client,
        params: { Bucket: location.bucket, Key, Body: feed, ...(options.contentType === undefined ? {} : { ContentType: options.contentType }) },
        // Parts large enough that maxBytes fits in S3's 10,000 parts.
        partSize: maxBytes !== undefined && Number.isFinite(maxBytes) ? Math.max(MIN_PART_SIZE, Math.ceil(maxBytes / MAX_PARTS)) : MIN_PART_SIZE,
        queueSize: QUEUE_SIZE,
        // On any failure the upload sends AbortMultipartUpload itself before done() rejects.
        leavePartsOnError: false,
      });
      try {
        await upload.done();
      } catch (error) {
        // The body's own failure (BlobTooLargeError, a client gone) is the cause; what the upload
        // reports may be a later one, such as a server that refuses AbortMultipartUpload.
        const cause = measuring.errored;
        // Stop reading the caller's body (pipeline destroys it with `feed`).
        feed.destroy();
        throw cause ?? new StorageUnavailableError(error);
      }
      return { size: measuring.size, sha256: measuring.digest() };
    },

    inspect,

    async open(key) {
      const body = await get(key);
      if (body === null) throw new BlobNotFoundError(key);
      return body;
    },

    async remove(key) {
      // S3 answers 204 for a key that is not there.
      await client.send(new DeleteObjectCommand({ Bucket: location.bucket, Key: objectKey(key) })).catch((error: unknown) => {
        throw new StorageUnavailableError(error);
      });
    },

    async presignedUrl(key, options) {
      const command = new GetObjectCommand({ Bucket: location.bucket, Key: objectKey(key), ResponseContentDisposition: attachmentHeader(options.filename) });
      return getSignedUrl(client, command, { expiresIn: options.expiresInSeconds });
    },

    multipart: s3Multipart(client, location.bucket, objectKey, inspect),
  };
}

/**
 * S3's answer for a key that is not there. Not any 404: a missing bucket, or an endpoint that
 * is not S3 at all (a proxy, a web server), must fail rather than read as a missing object.
 */
function isMissingObject(error: unknown): boolean {
  return error instanceof S3ServiceException && error.name === 'NoSuchKey';
}
