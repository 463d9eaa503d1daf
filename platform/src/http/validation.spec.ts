import { describe, expect, it } from 'vitest';
import { assertValidText, invalidTextFields, maxReportedFields } from './validation.ts';

describe('text checks', () => {
  it('names each field with a NUL or an unpaired surrogate, and a __proto__ key', () => {
    const value = JSON.parse('{"a":"ok","b":["x","y\\u0000"],"c":{"d\\ud800":1,"e":{"f":"\\udc00"}},"g":{"__proto__":1}}') as unknown;
    expect([...invalidTextFields(value).keys()].sort()).toEqual(['b.1', 'c', 'c.e.f', 'g.__proto__']);
    expect(() => assertValidText({ q: 'a\u0000' }, 'query')).toThrow(expect.objectContaining({ status: 400, errors: { q: [expect.any(String)] } }));
  });

  it('answers with an error map that inherits nothing, whatever the names', () => {
    try {
      assertValidText(JSON.parse('{"constructor":"\\u0000","toString":"\\u0000","__proto__":1}'), 'body');
      expect.unreachable();
    } catch (error) {
      const errors = (error as { errors: Record<string, string[]> }).errors;
      expect(Object.getPrototypeOf(errors)).toBeNull();
      expect(Object.keys(errors).sort()).toEqual(['__proto__', 'constructor', 'toString']);
    }
  });

  it('walks without recursion, in time linear in the size, however deep', () => {
    let deep: unknown = 'a\u0000';
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect([...invalidTextFields(deep).keys()]).toEqual([Array(100_000).fill('0').join('.')]);

    let wide: unknown = Array.from({ length: 500_000 }, () => 1);
    for (let i = 0; i < 1_500; i += 1) wide = [wide];
    const started = performance.now();
    expect(invalidTextFields({ x: wide }).size).toBe(0);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('stops after a bounded number of fields', () => {
    expect(invalidTextFields(Array.from({ length: 10_000 }, () => '\u0000')).size).toBe(maxReportedFields);
  });
});
