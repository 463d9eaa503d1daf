/** Nearest-rank percentile of values already sorted ascending; NaN when there are none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export function sortedCopy(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

export function median(values: readonly number[]): number {
  return percentile(sortedCopy(values), 50);
}

export type Spread = { readonly p50: number; readonly p99: number; readonly count: number };

export function spread(values: readonly number[]): Spread {
  const sorted = sortedCopy(values);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), count: sorted.length };
}
