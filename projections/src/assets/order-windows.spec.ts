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

  it('is wide when it reaches the end, or spans a tenth of the order below its start and at least 50,000 assets', () => {
    expect(isWideWindow(windows, null, windowBound(windows, null, 5_000))).toBe(false);
    expect(isWideWindow(windows, null, windowBound(windows, null, 99_000))).toBe(false);
    expect(isWideWindow(windows, null, windowBound(windows, null, 100_000))).toBe(true);
    expect(isWideWindow(windows, null, null)).toBe(true);
    // Deep in the order a tenth is less, but never under 50,000 assets.
    const deep = windows.bounds[600] as string;
    expect(isWideWindow(windows, deep, windowBound(windows, deep, 49_000))).toBe(false);
    expect(isWideWindow(windows, deep, windowBound(windows, deep, 50_000))).toBe(true);
    // Near the end, half of what is left is still narrow when it is a few thousand assets.
    const tail = windows.bounds[990] as string;
    expect(isWideWindow(windows, tail, windowBound(windows, tail, 5_000))).toBe(false);
  });

  it('tells how many assets of the order lie between two creation times, at least a slice', () => {
    // From the head: the slice above the newest bound counts too (assets created since the statistics).
    expect(orderSpan(windows, null, windows.bounds[40] as string)).toBe(41_000);
    expect(orderSpan(windows, windows.bounds[10] as string, windows.bounds[40] as string)).toBe(30_000);
    expect(orderSpan(windows, windows.bounds[10] as string, windows.bounds[10] as string)).toBe(1_000);
  });
});
