import { describe, expect, it } from 'vitest';
import { HttpError, type EventStore } from '@cairn/platform';
import type { ReadDb } from '@cairn/projections';
import { ChangeHub } from './change-hub.ts';

const settings = { heartbeatMs: 1000, streamsPerCaller: 2, streamsPerProcess: 3, streamMaxSeconds: 60, pollMs: 1000 };
// reserve() reads neither: it only counts.
const hub = () => new ChangeHub({ db: {} as ReadDb, eventStore: {} as EventStore, settings });
const statusOf = (work: () => unknown) => {
  try {
    work();
    return 200;
  } catch (error) {
    return error instanceof HttpError ? error.status : 500;
  }
};

describe('ChangeHub.reserve', () => {
  it('bounds the streams of one caller and of the process, and gives slots back once', () => {
    const h = hub();
    const a1 = h.reserve('a');
    h.reserve('a');
    expect(statusOf(() => h.reserve('a'))).toBe(429);
    h.reserve('b');
    expect(statusOf(() => h.reserve('c'))).toBe(429);
    a1();
    a1();
    expect(statusOf(() => h.reserve('c'))).toBe(200);
    expect(statusOf(() => h.reserve('d'))).toBe(429);
  });

  it('takes no stream once closed (503)', () => {
    const h = hub();
    h.close();
    expect(statusOf(() => h.reserve('a'))).toBe(503);
  });
});
