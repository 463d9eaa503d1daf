/** One JSON object a line on stdout, shaped like the Emmett scripts' lines. */
export function out(record: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ peer: 'cairn-postgresql', ...record })}\n`);
}

export const r2 = (x: number | null | undefined) => (x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x * 100) / 100);

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
