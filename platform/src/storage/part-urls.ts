import { storage } from '@cairn/domain';
import type { BlobStore, MultipartRef, UploadedPart } from './blob-store.ts';
import { signPart } from './upload-links.ts';

/** At most this many part URLs per answer: a client with more parts asks again as it goes. */
export const partUrlsPerAnswer = 1000;

export type UploadPlanView = { readonly size: number; readonly partSize: number; readonly partCount: number };

export type PartUrl = { readonly part_number: number; readonly size: number; readonly url: string };

export type PartUrlOptions = {
  readonly assetId: string;
  /** The service's public base URL: fs parts go to its signed part route. */
  readonly publicUrl: string;
  readonly linkKey: Buffer;
  /** When the URLs stop working (seconds since the epoch): never after the upload expires. */
  readonly expiresAt: number;
  readonly nowSeconds: number;
};

/** The part numbers of the plan the repository does not hold whole. */
export function missingParts(plan: UploadPlanView, received: readonly UploadedPart[]): number[] {
  const whole = new Set(received.filter((p) => p.size === storage.partBytes(plan, p.partNumber)).map((p) => p.partNumber));
  const missing: number[] = [];
  for (let n = 1; n <= plan.partCount; n += 1) if (!whole.has(n)) missing.push(n);
  return missing;
}

/**
 * URLs for the first parts of `missing` (docs/storage.md "Direct uploads"): presigned S3
 * UploadPart URLs that sign each part's exact length, or the service's own signed part
 * route for fs repositories.
 */
export async function issuePartUrls(store: BlobStore, ref: MultipartRef, plan: UploadPlanView, missing: readonly number[], options: PartUrlOptions): Promise<PartUrl[]> {
  const ttl = options.expiresAt - options.nowSeconds;
  if (ttl <= 0) return [];
  const base = `${options.publicUrl}/api/assets/${options.assetId}/content/uploads/${ref.uploadId}/parts/`;
  return Promise.all(
    missing.slice(0, partUrlsPerAnswer).map(async (partNumber) => {
      const size = storage.partBytes(plan, partNumber);
      const presigned = await store.multipart.partUrl(ref, partNumber, size, ttl);
      const url = presigned ?? `${base}?part=${partNumber}&expires=${options.expiresAt}&signature=${signPart(options.linkKey, { assetId: options.assetId, uploadId: ref.uploadId, partNumber, expiresAt: options.expiresAt })}`;
      return { part_number: partNumber, size, url };
    }),
  );
}

export type UploadProgressView = {
  readonly received: readonly UploadedPart[];
  readonly missing: readonly number[];
  readonly urls: readonly PartUrl[];
  readonly urlsExpireAt: Date | null;
};

/**
 * Where an open upload stands at its repository, with fresh URLs for its missing parts:
 * they expire after `partUrlTtlSeconds`, never after the upload. `received` is given by a
 * caller that knows it (a new upload holds nothing); otherwise the repository is asked.
 */
export async function uploadProgress(
  store: BlobStore,
  ref: MultipartRef,
  plan: UploadPlanView,
  options: { readonly assetId: string; readonly publicUrl: string; readonly linkKey: Buffer; readonly uploadExpiresAt: Date; readonly partUrlTtlSeconds: number; readonly now: Date; readonly received?: readonly UploadedPart[] },
): Promise<UploadProgressView> {
  const received = options.received ?? (await store.multipart.listParts(ref));
  const missing = missingParts(plan, received);
  const nowSeconds = Math.floor(options.now.getTime() / 1000);
  const expiresAt = Math.min(nowSeconds + options.partUrlTtlSeconds, Math.floor(options.uploadExpiresAt.getTime() / 1000));
  const urls = await issuePartUrls(store, ref, plan, missing, { assetId: options.assetId, publicUrl: options.publicUrl, linkKey: options.linkKey, expiresAt, nowSeconds });
  return { received, missing, urls, urlsExpireAt: urls.length > 0 ? new Date(expiresAt * 1000) : null };
}
