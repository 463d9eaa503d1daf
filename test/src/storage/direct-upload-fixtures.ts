import { createHash, randomBytes } from 'node:crypto';
import type { uploadSchema } from '@cairn/contract';
import { createRepository } from '@cairn/cli';
import { openBlobStore, type BlobStore } from '@cairn/platform';
import request from 'supertest';
import type { z } from 'zod';
import { bearer, type User } from '../support/api.ts';
import { publicUrl, type Harness } from '../support/harness.ts';
import type { S3TestServer } from '../support/s3-server.ts';
import { fsRepository } from './storage-fixtures.ts';

export type Upload = z.output<typeof uploadSchema>;
export type PartUrl = Upload['part_urls'][number];

export const MiB = 1024 ** 2;
export const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** An object cut in 5 MiB parts (the smallest S3 takes): 12 MiB is parts of 5, 5 and 2 MiB. */
export function objectOf(size: number): Buffer {
  return randomBytes(size);
}

export const partOf = (bytes: Buffer, upload: Pick<Upload, 'part_size'>, partNumber: number) => bytes.subarray((partNumber - 1) * upload.part_size, partNumber * upload.part_size);

export type Repositories = { fs: { id: string; dir: string }; s3: { id: string; store: BlobStore } };

/** An fs repository and an s3 one on s3rver, both made by the operator. */
export async function bothRepositories(h: Harness, s3: S3TestServer, bucket: string): Promise<Repositories> {
  const fs = await fsRepository(h, 'disk');
  const location = { kind: 's3', endpoint: s3.endpoint, bucket, prefix: 'cairn', region: 'us-east-1' } as const;
  const { id } = await createRepository(h.resources, 'bucket', location);
  return { fs, s3: { id, store: openBlobStore(location, s3.credentials) } };
}

export const s3Env = (s3: S3TestServer) => ({ CAIRN_S3_ACCESS_KEY_ID: s3.credentials.accessKeyId, CAIRN_S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey });

export function startUpload(h: Harness, caller: User, assetId: string, body: Record<string, unknown>) {
  return request(h.commandApp).post(`/api/assets/${assetId}/content/uploads/`).set(bearer(caller)).send({ filename: 'data.bin', part_size: 5 * MiB, ...body });
}

export function uploadStatus(h: Harness, caller: User, assetId: string, uploadId: string) {
  return request(h.queryApp).get(`/api/assets/${assetId}/content/uploads/${uploadId}/`).set(bearer(caller));
}

export function completeUpload(h: Harness, caller: User, assetId: string, uploadId: string) {
  return request(h.commandApp).post(`/api/assets/${assetId}/content/uploads/${uploadId}/complete/`).set(bearer(caller));
}

export function abortUpload(h: Harness, caller: User, assetId: string, uploadId: string) {
  return request(h.commandApp).delete(`/api/assets/${assetId}/content/uploads/${uploadId}/`).set(bearer(caller));
}

/**
 * PUTs a part to its URL as a client would: a presigned S3 URL with plain fetch, straight to
 * the bucket; the service's own signed URL (its public URL is not listening in tests)
 * through supertest. Answers the status.
 */
export async function sendPart(h: Harness, url: string, bytes: Buffer, headers: Record<string, string> = {}): Promise<number> {
  if (url.startsWith(publicUrl)) {
    const res = await request(h.commandApp).put(url.slice(publicUrl.length)).set({ 'Content-Type': 'application/octet-stream', ...headers }).send(bytes);
    return res.status;
  }
  const res = await fetch(url, { method: 'PUT', body: bytes, headers });
  await res.arrayBuffer();
  return res.status;
}

/** Sends the parts named (all when none are) in parallel, each to its URL; each must be stored. */
export async function sendParts(h: Harness, upload: Pick<Upload, 'part_urls' | 'part_size'>, bytes: Buffer, only?: readonly number[]): Promise<number[]> {
  const urls = upload.part_urls.filter((p) => !only || only.includes(p.part_number));
  return Promise.all(urls.map((p) => sendPart(h, p.url, partOf(bytes, upload, p.part_number))));
}

export async function allocationOf(h: Harness, caller: User, allocationId: string): Promise<{ used_bytes: number; reserved_bytes: number; content_count: number }> {
  const res = await request(h.queryApp).get(`/api/allocations/${allocationId}/`).set(bearer(caller));
  return res.body as { used_bytes: number; reserved_bytes: number; content_count: number };
}
