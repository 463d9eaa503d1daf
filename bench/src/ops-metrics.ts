/** The read cache's lookups so far, from the service's `/metrics` on its operations port (CAIRN_OPS_PORT). */
export type CacheLookups = { readonly hits: number; readonly misses: number };

export async function readCacheLookups(opsUrl: string): Promise<CacheLookups> {
  const response = await fetch(`${opsUrl}/metrics`);
  if (!response.ok) throw new Error(`${opsUrl}/metrics answered ${response.status}`);
  const text = await response.text();
  const value = (outcome: string) => Number(new RegExp(`^cairn_read_cache_lookups\\{outcome="${outcome}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { hits: value('hit'), misses: value('miss') };
}

/** The share of lookups between two readings that were hits, in per cent (NaN when none). */
export function hitRate(before: CacheLookups, after: CacheLookups): number {
  const hits = after.hits - before.hits;
  const all = hits + after.misses - before.misses;
  return all === 0 ? Number.NaN : (100 * hits) / all;
}
