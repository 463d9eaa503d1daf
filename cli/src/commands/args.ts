import { parseArgs } from 'node:util';

export class UsageError extends Error {
  override name = 'UsageError';
}

type Spec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

export function parseOptions<S extends Spec>(args: readonly string[], spec: S) {
  try {
    return parseArgs({ args: [...args], options: spec, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function requireOption(value: string | boolean | (string | boolean)[] | undefined, name: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value.trim();
}
