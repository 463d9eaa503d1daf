import type { assetSchema } from '@cairn/contract';
import request from 'supertest';
import { expect } from 'vitest';
import type { z } from 'zod';
import { bearer, type User } from '../support/api.ts';
import type { Harness } from '../support/harness.ts';

export type Asset = z.output<typeof assetSchema>;

export async function createAsset(h: Harness, caller: User, body: Record<string, unknown> = {}): Promise<Asset> {
  const res = await request(h.commandApp)
    .post('/api/assets/')
    .set(bearer(caller))
    .send({ title: 'An asset', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Asset;
}

export async function setPermissions(h: Harness, caller: User, assetId: string, permissions: { subject_type: string; subject_id?: string | null; flags: number }[]) {
  const res = await request(h.commandApp).put(`/api/assets/${assetId}/permissions/`).set(bearer(caller)).send({ permissions });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { subject: { id: string | null; subject_type: string; name: string; email: string }; flags: number }[];
}

/**
 * An owner's assets made from `bodies`, each readable by a fan who starred the first
 * `starred` of them, with the statistics filtered pages plan with (order-windows.ts).
 */
export async function fanOfAssets(h: Harness, bodies: readonly Record<string, unknown>[], starred: number): Promise<{ owner: User; fan: User; assets: Asset[] }> {
  const [owner, fan] = [await h.createUser(), await h.createUser()];
  const assets: Asset[] = [];
  for (const body of bodies) {
    const asset = await createAsset(h, owner, body);
    await setPermissions(h, owner, asset.id, [{ subject_type: 'user', subject_id: fan.id, flags: 1 }]);
    assets.push(asset);
  }
  for (const asset of assets.slice(0, starred)) await request(h.commandApp).post(`/api/assets/${asset.id}/star/`).set(bearer(fan)).expect(204);
  await h.resources.pool.query('analyze assets');
  await h.resources.pool.query('analyze asset_stars');
  return { owner, fan, assets };
}
