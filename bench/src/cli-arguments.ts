/** A bench's numeric option: the argument at `i` as a number (`1_000_000` allowed), at least 0. */
export function countArgument(args: readonly string[], i: number, option: string | undefined): number {
  const v = Number((args[i] ?? '').replace(/_/g, ''));
  if (!Number.isFinite(v) || v < 0) throw new Error(`${option} needs a number`);
  return v;
}

/** A bench's option that takes a value: the argument at `i`, which must be there. */
export function textArgument(args: readonly string[], i: number, option: string | undefined): string {
  const v = args[i];
  if (v === undefined) throw new Error(`${option} needs a value`);
  return v;
}
