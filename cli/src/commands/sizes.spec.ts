import { describe, expect, it } from 'vitest';
import { parseSize } from './sizes.ts';

describe('sizes on the command line', () => {
  it('reads bytes and decimal and binary units, in any case', () => {
    expect(parseSize('1024')).toBe(1024);
    expect(parseSize('10GiB')).toBe(10 * 2 ** 30);
    expect(parseSize('1.5 TB')).toBe(1.5e12);
    expect(parseSize('2kb')).toBe(2000);
  });

  it('refuses what is not a size', () => {
    for (const bad of ['', 'ten', '-1', '10XB', '1e3']) expect(() => parseSize(bad)).toThrow(/must be a number of bytes/);
  });
});
