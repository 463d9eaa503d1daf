/** Plain text tables: figures right-aligned, a missing figure printed as a dash. */
export type Cell = string | number | null | undefined;

export function num(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  if (Math.abs(value) >= 1000 || Number.isInteger(value)) return Math.round(value).toLocaleString('en-US');
  return value.toFixed(digits);
}

/** figure / limit, as the benchmarks print beside every figure. */
export function ratio(figure: number | null | undefined, limit: number | null | undefined): string {
  if (figure === null || figure === undefined || limit === null || limit === undefined || !Number.isFinite(figure) || !Number.isFinite(limit) || limit === 0) return '—';
  return `${figure / limit >= 10 ? (figure / limit).toFixed(0) : (figure / limit).toFixed(2)}×`;
}

export function printTable(title: string, header: readonly string[], rows: readonly (readonly Cell[])[]): void {
  const text = (cell: Cell) => (typeof cell === 'number' ? num(cell) : (cell ?? '—'));
  const all = [header, ...rows.map((row) => row.map(text))];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  console.log(`\n${title}`);
  console.log(line(all[0] ?? []));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of all.slice(1)) console.log(line(row));
}
