import { describe, expect, it } from 'vitest';
import { decodeFormComponent, decodeUtf8, jsonNestingExceeds, maxJsonDepth, parseFormText, queryStringIsUtf8 } from './body-text.ts';

describe('JSON nesting', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('counts lists and objects alike, up to the limit', () => {
    expect(maxJsonDepth).toBe(64);
    expect(jsonNestingExceeds(nested(64))).toBe(false);
    expect(jsonNestingExceeds(nested(65))).toBe(true);
    expect(jsonNestingExceeds(`${'{"a":'.repeat(65)}1${'}'.repeat(65)}`)).toBe(true);
    expect(jsonNestingExceeds('[{"a":[{}]}]', 4)).toBe(false);
    expect(jsonNestingExceeds('[{"a":[{}]}]', 3)).toBe(true);
    // Siblings do not add up.
    expect(jsonNestingExceeds(`[${Array(1000).fill('[[]]').join(',')}]`, 3)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonNestingExceeds(`{"a":"${'['.repeat(100)}"}`, 1)).toBe(false);
    expect(jsonNestingExceeds(`{"a":"\\"${'['.repeat(100)}\\\\"}`, 1)).toBe(false);
    expect(jsonNestingExceeds(`{"a":"\\\\"}${'['.repeat(3)}`, 2)).toBe(true);
  });

  it('is one pass: a million levels cost no stack and little time', () => {
    const started = performance.now();
    expect(jsonNestingExceeds(nested(1_000_000))).toBe(true);
    expect(jsonNestingExceeds(`[${'1,'.repeat(500_000)}1]`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('UTF-8', () => {
  it('decodes UTF-8 and refuses anything else', () => {
    expect(decodeUtf8(Buffer.from('Förderung 🧊'))).toBe('Förderung 🧊');
    expect(decodeUtf8(Buffer.from([0xef, 0xbb, 0xbf, 0x61]))).toBe('a');
    for (const bytes of [[0xff], [0xfe], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) expect(decodeUtf8(Buffer.from(bytes))).toBeNull();
  });
});

describe('URL-encoded form text', () => {
  it('decodes components as the URL standard does, refusing escapes that are not UTF-8', () => {
    expect(decodeFormComponent('a+b%20c')).toBe('a b c');
    expect(decodeFormComponent('F%C3%B6rderung')).toBe('Förderung');
    expect(decodeFormComponent('100%')).toBe('100%');
    expect(decodeFormComponent('100%25%20sure%20%zz%')).toBe('100% sure %zz%');
    expect(decodeFormComponent('%FF%FE')).toBeNull();
    expect(decodeFormComponent('%zz%FF')).toBeNull();
    expect(decodeFormComponent('%ED%A0%80')).toBeNull();
    expect(decodeFormComponent('%FF', 'latin1')).toBe('ÿ');
  });

  it('gathers repeated and [] names in lists, in a map that inherits nothing', () => {
    const parsed = parseFormText('a=1&b=2&a=3&c[]=4&&d&constructor=x&__proto__=y', 100);
    expect('fields' in parsed).toBe(true);
    if (!('fields' in parsed)) return;
    expect(Object.getPrototypeOf(parsed.fields)).toBeNull();
    expect({ ...parsed.fields }).toEqual({ a: ['1', '3'], b: '2', c: '4', d: '', constructor: 'x', ['__proto__']: 'y' });
  });

  it('stops at the parameter limit and at escapes that are not UTF-8', () => {
    expect(parseFormText('a=1&b=2&c=3', 2)).toEqual({ tooMany: true });
    expect(parseFormText('a=%FF', 2)).toEqual({ notUtf8: true });
    expect(parseFormText('%C0%AF=1', 2)).toEqual({ notUtf8: true });
  });

  it('checks the escapes of a query string', () => {
    expect(queryStringIsUtf8('/api/x/')).toBe(true);
    expect(queryStringIsUtf8('/api/x/?q=%C3%B6&r=100%')).toBe(true);
    expect(queryStringIsUtf8('/api/x/?q=%FF')).toBe(false);
    expect(queryStringIsUtf8('/api/x/?%FE=1&q=2')).toBe(false);
  });
});
