import type { collectionSchema } from '@cairn/contract';
import request from 'supertest';
import { expect } from 'vitest';
import type { z } from 'zod';
import type { Asset } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import type { Harness } from '../support/harness.ts';

export type Collection = z.output<typeof collectionSchema>;
export type Entry = { subject_type: string; subject_id?: string | null; flags: number };

export async function createCollection(h: Harness, caller: User, body: Record<string, unknown> = {}): Promise<Collection> {
  const res = await request(h.commandApp)
    .post('/api/collections/')
    .set(bearer(caller))
    .send({ title: 'A collection', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Collection;
}

export async function getCollection(h: Harness, caller: User, id: string): Promise<Collection> {
  const res = await request(h.queryApp).get(`/api/collections/${id}/`).set(bearer(caller));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Collection;
}

export async function setCollectionPermissions(h: Harness, caller: User, id: string, permissions: Entry[]) {
  const res = await request(h.commandApp).put(`/api/collections/${id}/permissions/`).set(bearer(caller)).send({ permissions });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { subject: { id: string | null; subject_type: string; name: string; email: string }; flags: number }[];
}

export async function moveCollection(h: Harness, caller: User, id: string, parentId: string): Promise<Collection> {
  const res = await request(h.commandApp).patch(`/api/collections/${id}/`).set(bearer(caller)).send({ parent_id: parentId });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Collection;
}

export async function attachAssets(h: Harness, caller: User, id: string, assetIds: string[]): Promise<void> {
  const res = await request(h.commandApp).post(`/api/collections/${id}/assets/`).set(bearer(caller)).send({ asset_ids: assetIds });
  expect(res.status, JSON.stringify(res.body)).toBe(204);
}

/** Every page of a listing (its path with any query), followed through X-Next-Cursor until X-Has-More is false. */
export async function everyPage<T = Asset>(h: Harness, caller: User, path: string, limit: number): Promise<T[]> {
  const seen: T[] = [];
  let cursor: string | undefined;
  const join = path.includes('?') ? '&' : '?';
  for (let page = 0; page < 2000; page += 1) {
    const res = await request(h.queryApp)
      .get(`${path}${join}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      .set(bearer(caller));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers['x-page-limit']).toBe(String(limit));
    seen.push(...(res.body as T[]));
    if (res.headers['x-has-more'] === 'false') {
      expect(res.headers['x-next-cursor']).toBeUndefined();
      return seen;
    }
    expect(res.headers['x-has-more']).toBe('true');
    expect(res.body).toHaveLength(limit);
    cursor = res.headers['x-next-cursor'] as string;
    expect(cursor).toBeTruthy();
  }
  throw new Error('the listing never ended');
}

/** Runs `work` over `items`, `width` at a time. */
export async function inBatches<T, R>(items: readonly T[], width: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += width) results.push(...(await Promise.all(items.slice(i, i + width).map((item, k) => work(item, i + k)))));
  return results;
}
