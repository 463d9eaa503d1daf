import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from './main.ts';

describe('cairn command names', () => {
  afterEach(() => vi.restoreAllMocks());

  it('takes names that Object.prototype has as unknown commands, before opening anything', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf']) {
      expect(await main([name])).toBe(2);
      expect(String(stderr.mock.lastCall?.[0])).toMatch(/unknown command/);
    }
  });
});
