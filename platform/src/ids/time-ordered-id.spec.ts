import { describe, expect, it } from 'vitest';
import { timeOrderedId } from './time-ordered-id.ts';

describe('timeOrderedId', () => {
  it('is a version 7 UUID of the RFC 9562 variant, carrying the time in its first 48 bits', () => {
    const at = Date.UTC(2026, 10, 25, 12, 0, 0, 123);
    const id = timeOrderedId(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('sorts by time across milliseconds and never repeats', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => timeOrderedId(1_700_000_000_000 + Math.floor(i / 10)));
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 10; i < ids.length; i += 10) expect((ids[i] ?? '') > (ids[i - 1] ?? '')).toBe(true);
  });
});
