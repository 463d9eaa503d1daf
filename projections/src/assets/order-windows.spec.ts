import { describe, expect, it } from 'vitest';
import { isWideWindow, orderSpan, windowBound, type OrderWindows } from './order-windows.ts';

/** 1,000 slices of 1,000 assets each, newest first: a million assets. */
const windows: OrderWindows = {
  bounds: Array.from({ length: 1_001 }, (_, i) => new Date(Date.UTC(2026, 0, 1) - i * 60_000).toISOString().replace('Z', '000Z')),
  rowsPerSlice: 1_000,
};

describe('order windows', () => {
  it('a window spans about the assets asked for, from below its start, and none reaches past the end', () => {
    expect(windowBound(windows, null, 5_000)).toBe(windows.bounds[4]);
    expect(windowBound(windows, windows.bounds[10] as string, 5_000)).toBe(windows.bounds[15]);
    expect(windowBound(windows, windows.bounds[998] as string, 5_000)).toBeNull();
  });

  it('is wide when it spans at least 100,000 assets (or as many as asked), to the end of the order too', () => {
    expect(isWideWindow(windows, null, windowBound(windows, null, 5_000))).toBe(false);
    expect(isWideWindow(windows, null, windowBound(windows, null, 99_000))).toBe(false);
    expect(isWideWindow(windows, null, windowBound(windows, null, 100_000))).toBe(true);
    expect(isWideWindow(windows, null, null)).toBe(true);
    const deep = windows.bounds[600] as string;
    expect(isWideWindow(windows, deep, windowBound(windows, deep, 99_000))).toBe(false);
    expect(isWideWindow(windows, deep, windowBound(windows, deep, 100_000))).toBe(true);
    // The end of the order, a few thousand assets below: narrow, the cursor's bound on the order's index.
    const tail = windows.bounds[990] as string;
    expect(isWideWindow(windows, tail, null)).toBe(false);
    expect(isWideWindow(windows, tail, null, 5_000)).toBe(true);
  });

  it('tells how many assets of the order lie between two creation times, at least a slice', () => {
    // From the head: the slice above the newest bound counts too (assets created since the statistics).
    expect(orderSpan(windows, null, windows.bounds[40] as string)).toBe(41_000);
    expect(orderSpan(windows, windows.bounds[10] as string, windows.bounds[40] as string)).toBe(30_000);
    expect(orderSpan(windows, windows.bounds[10] as string, windows.bounds[10] as string)).toBe(1_000);
  });
});
