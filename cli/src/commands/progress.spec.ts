import { describe, expect, it } from 'vitest';
import { checkLine } from './doctor/check.ts';
import { progressText, statusLine, terminalProgress } from './progress.ts';

function fakeStream(isTTY: boolean) {
  const written: string[] = [];
  return { stream: { isTTY, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream, written };
}

describe('progress of long work', () => {
  it('says how many of how many, and the rate', () => {
    expect(progressText(1200, 5000, 'events', 2)).toBe('1,200/5,000 events, 600/s');
    expect(progressText(1200, null, 'events', 0.5)).toBe('1,200 events, 2,400/s');
  });

  it('redraws one line with the percentage on a terminal, and leaves it there at the end', () => {
    const { stream, written } = fakeStream(true);
    const progress = terminalProgress('audit export', 4000, 'events', stream);
    progress.update(1000);
    progress.update(4000);
    progress.end();
    progress.end();
    expect(written[0]).toMatch(/^\raudit export 25% 1,000\/4,000 events, [\d,]+\/s/);
    expect(written[0]?.endsWith('\u001b[K')).toBe(true);
    expect(written[1]).toMatch(/^\raudit export 100% 4,000\/4,000 events/);
    expect(written.slice(2)).toEqual(['\n']);
  });

  it('redraws at most ten times a second', () => {
    const { stream, written } = fakeStream(true);
    const progress = terminalProgress('verify assets: replay', null, 'events', stream);
    for (let done = 1; done <= 50; done += 1) progress.update(done);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^\rverify assets: replay 1 events, /);
  });

  it('prints nothing when stderr is not a terminal', () => {
    const { stream, written } = fakeStream(false);
    const progress = terminalProgress('audit export', 10, 'events', stream);
    progress.update(5);
    progress.end();
    const status = statusLine(stream);
    status.show('checking postgresql');
    status.print('ok    postgresql: 17');
    status.done();
    expect(written).toEqual([]);
  });

  it("shows the doctor's status line, keeps one line per check and clears the status at the end", () => {
    const { stream, written } = fakeStream(true);
    const status = statusLine(stream);
    status.show('checking redis');
    status.print(checkLine({ check: 'redis', status: 'fail', detail: 'no answer within 15 s', fix: 'start Redis' }));
    status.print(checkLine({ check: 'postgresql version', status: 'ok', detail: 'PostgreSQL 17.2', fix: null }));
    status.done();
    expect(written).toEqual(['\rchecking redis\u001b[K', '\rFAIL  redis: no answer within 15 s\u001b[K\n', '\rok    postgresql version: PostgreSQL 17.2\u001b[K\n', '\r\u001b[K']);
  });
});
