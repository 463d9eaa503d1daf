import { randomUUID } from 'node:crypto';

/** Query parameters; a list becomes the key repeated. */
export type Query = Record<string, string | number | readonly string[]>;

/** A query string with repeated keys for lists (`metadata=a&metadata=b`), as clients send them. */
export function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  return params.toString();
}

/** A tag of one test's own: filtering on it (`tags` ANDs with everything) keeps tests sharing a database apart. */
export const marker = () => `m-${randomUUID().slice(0, 13)}`;

/** The listing's order for one caller (interface 4.3.1): their starred assets first, then newest first, then by id. */
export function listingOrder(starred: ReadonlySet<string>) {
  return (x: { id: string; created_at: string }, y: { id: string; created_at: string }) =>
    Number(starred.has(y.id)) - Number(starred.has(x.id)) || (x.created_at < y.created_at ? 1 : x.created_at > y.created_at ? -1 : x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
}
