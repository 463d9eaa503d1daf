import { describe, expect, it } from 'vitest';
import { snapshotReader } from './snapshot-reader.ts';

/** A snapshot query that answers when the test says, counting how many were sent. */
function fakeQuery() {
  const pending: ((s: string) => void)[] = [];
  let sent = 0;
  const query = () => {
    sent += 1;
    return new Promise<string>((resolve) => pending.push(resolve));
  };
  return { query, sent: () => sent, answer: (s: string) => pending.shift()?.(s) };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('snapshotReader', () => {
  it('gives each caller a reading that started after it asked, shared by those who asked meanwhile', async () => {
    const { query, sent, answer } = fakeQuery();
    const read = snapshotReader(query);
    const first = read();
    await flush();
    expect(sent()).toBe(1);
    // Asked while the first reading runs: they may not use it, and share the next.
    const second = read();
    const third = read();
    await flush();
    expect(sent()).toBe(1);
    answer('100:100:');
    expect(await first).toBe('100:100:');
    await flush();
    expect(sent()).toBe(2);
    answer('101:101:');
    expect(await second).toBe('101:101:');
    expect(await third).toBe('101:101:');
    // Nothing running: a new reading starts at once.
    const fourth = read();
    await flush();
    expect(sent()).toBe(3);
    answer('102:102:');
    expect(await fourth).toBe('102:102:');
  });
});
