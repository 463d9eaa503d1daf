import { describe, expect, it } from 'vitest';
import { rebuildProgress } from './rebuild-progress.ts';

function fakeStream(isTTY: boolean) {
  const written: string[] = [];
  return { stream: { isTTY, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream, written };
}

describe('rebuild progress', () => {
  it('redraws a bar with the events done, the rate and the time left on a terminal', () => {
    const { stream, written } = fakeStream(true);
    const progress = rebuildProgress('assets', 1000, stream);
    progress.update(250);
    progress.end();
    expect(written[0]).toMatch(/^\rassets \[#{8}\.{22}\] 25% 250\/1,000 events, [\d,]+\/s, \d+ s left/);
    expect(written.at(-1)).toBe('\n');
  });

  it('prints plain lines, a few seconds apart, elsewhere', () => {
    const { stream, written } = fakeStream(false);
    const progress = rebuildProgress('assets', null, stream);
    progress.update(10);
    progress.update(20);
    progress.end();
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^rebuild assets: 10 events, [\d,]+\/s\n$/);
  });
});
