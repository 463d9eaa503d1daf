/**
 * The text of request bodies and query strings, checked before anything walks it
 * (docs/http.md "Hostile input"). Every function here is one pass over its input, with no
 * recursion: a request's cost grows with its size only, never with how it is nested.
 */

/** How deep a JSON body (or a JSON form value) may nest: `{}` and `[]` are one level each. */
export const maxJsonDepth = 64;

/**
 * Whether JSON text nests deeper than `limit`, counting brackets outside strings. Text
 * that is not JSON is left for the parser to refuse.
 */
export function jsonNestingExceeds(text: string, limit = maxJsonDepth): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth -= 1;
    }
  }
  return false;
}

export const depthMessage = `JSON may nest at most ${maxJsonDepth} levels deep.`;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes as text, or null when they are not UTF-8 (a leading byte order mark is dropped). */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

const hexValue = (c: number): number => (c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 0x37 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1);

/**
 * One name or value of `application/x-www-form-urlencoded` text, decoded as the URL
 * standard does (`+` is a space, `%` not followed by two hex digits stays as it is), except
 * that escapes which do not decode to UTF-8 give null instead of U+FFFD.
 */
export function decodeFormComponent(text: string, charset: 'utf-8' | 'latin1' = 'utf-8'): string | null {
  const spaced = text.includes('+') ? text.replaceAll('+', ' ') : text;
  if (!spaced.includes('%')) return spaced;
  if (charset === 'utf-8') {
    try {
      return decodeURIComponent(spaced);
    } catch {
      // A literal `%`, or escapes that are not UTF-8: decoded byte by byte below.
    }
  }
  const source = Buffer.from(spaced, charset);
  const bytes = Buffer.allocUnsafe(source.length);
  let length = 0;
  for (let i = 0; i < source.length; i += 1) {
    const byte = source[i] ?? 0;
    if (byte === 0x25 && i + 2 < source.length) {
      const high = hexValue(source[i + 1] ?? 0);
      const low = hexValue(source[i + 2] ?? 0);
      if (high >= 0 && low >= 0) {
        bytes[length] = high * 16 + low;
        length += 1;
        i += 2;
        continue;
      }
    }
    bytes[length] = byte;
    length += 1;
  }
  const decoded = bytes.subarray(0, length);
  return charset === 'utf-8' ? decodeUtf8(decoded) : decoded.toString('latin1');
}

export type FormParse = { readonly fields: Record<string, unknown> } | { readonly tooMany: true } | { readonly notUtf8: true };

/**
 * URL-encoded form text as fields (a null-prototype object, so no name finds an inherited
 * member). A repeated name, or one spelled `name[]`, gathers its values in a list.
 */
export function parseFormText(text: string, parameterLimit: number, charset: 'utf-8' | 'latin1' = 'utf-8'): FormParse {
  const fields = Object.create(null) as Record<string, unknown>;
  let count = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('&', start);
    if (end === -1) end = text.length;
    if (end > start) {
      count += 1;
      if (count > parameterLimit) return { tooMany: true };
      const pair = text.slice(start, end);
      const equals = pair.indexOf('=');
      const rawName = equals === -1 ? pair : pair.slice(0, equals);
      const decodedName = decodeFormComponent(rawName, charset);
      const value = equals === -1 ? '' : decodeFormComponent(pair.slice(equals + 1), charset);
      if (decodedName === null || value === null) return { notUtf8: true };
      const name = decodedName.endsWith('[]') ? decodedName.slice(0, -2) : decodedName;
      const previous = fields[name];
      if (previous === undefined) fields[name] = value;
      else if (Array.isArray(previous)) previous.push(value);
      else fields[name] = [previous, value];
    }
    start = end + 1;
  }
  return { fields };
}

/**
 * Whether a query string's escapes all decode to UTF-8. Node's query parser turns the
 * others into U+FFFD, which would search for, or store, what the client never sent.
 */
export function queryStringIsUtf8(url: string): boolean {
  const question = url.indexOf('?');
  if (question === -1) return true;
  const query = url.slice(question + 1);
  if (!query.includes('%')) return true;
  try {
    decodeURIComponent(query);
    return true;
  } catch {
    return query.split('&').every((pair) => pair.split('=').every((part) => decodeFormComponent(part) !== null));
  }
}
