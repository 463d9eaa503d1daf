import { permissionBits } from '@cairn/domain';
import { getLocation } from '@cairn/contract';
import { implement, signDownload } from '@cairn/platform';
import { listContents, listRepositories } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { openForRead } from './content-gate.ts';

/**
 * Interface 4.3 and DECISIONS.md 2: where the bytes are needs READ_METADATA; the download
 * URLs need READ_CONTENT (null otherwise). s3: a presigned URL of the bucket; fs: a signed
 * link to this service's download route. Both expire (CAIRN_DOWNLOAD_URL_TTL_SECONDS).
 */
export const getLocationRoute = (deps: QueryDeps) =>
  implement(getLocation, async ({ params, context, req }) => {
    const { asset } = await openForRead(deps, params['id'] ?? '', context.caller, req, 'READ_METADATA');
    const [contents, repositories] = await Promise.all([listContents(deps.db, asset.id), listRepositories(deps.db)]);
    const byId = new Map(repositories.map((r) => [r.id, r]));
    const readsContent = (asset.flags & permissionBits.READ_CONTENT) !== 0;
    const ttl = deps.storage.downloadUrlTtlSeconds;
    const expires = Math.floor(Date.now() / 1000) + ttl;
    const content = await Promise.all(
      contents.map(async (c) => {
        const repository = byId.get(c.repository_id);
        const kind = (repository?.kind ?? 'fs') as 'fs' | 's3';
        let url: string | null = null;
        if (readsContent) {
          if (kind === 's3') {
            const store = await deps.storage.stores.forRepository(c.repository_id);
            url = (await store?.presignedUrl(c.key, { expiresInSeconds: ttl, filename: c.filename })) ?? null;
          } else {
            const signature = signDownload(deps.storage.downloadKey, asset.id, c.id, expires);
            url = `${deps.publicUrl}/api/assets/${asset.id}/content/${c.id}/download/?expires=${expires}&signature=${signature}`;
          }
        }
        return {
          content_id: c.id,
          repository_id: c.repository_id,
          repository_name: repository?.name ?? '',
          kind,
          key: c.key,
          filename: c.filename,
          size: Number(c.size),
          url,
          expires_at: url ? new Date(expires * 1000).toISOString() : null,
        };
      }),
    );
    return { status: 200, body: { asset_id: asset.id, content } };
  });
