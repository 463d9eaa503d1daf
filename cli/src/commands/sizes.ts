import { InvalidArgumentError } from '@commander-js/extra-typings';

const units: Readonly<Record<string, number>> = { '': 1, b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40 };

/** A size as operators write it: bytes, or a whole or decimal number with a unit (10GiB, 1.5TB). */
export function parseSize(value: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = units[match?.[2]?.toLowerCase() ?? 'none'];
  if (!match || unit === undefined) throw new InvalidArgumentError('it must be a number of bytes, or a number with KB, MB, GB, TB, KiB, MiB, GiB or TiB.');
  const bytes = Math.round(Number(match[1]) * unit);
  if (!Number.isSafeInteger(bytes)) throw new InvalidArgumentError('it is too large.');
  return bytes;
}
