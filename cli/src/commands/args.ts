export class UsageError extends Error {
  override name = 'UsageError';
}

/** An option that only some uses of a command require (`--path` for an fs repository). */
export function requireOption(value: string | undefined, name: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value.trim();
}
