/**
 * Values read from files (EXIF tags, PDF info strings, audio tags) are attacker-controlled:
 * they are turned into small JSON values before they leave the worker, so that a stored
 * metadata document never holds binary blobs, invalid dates, NaN, or megabytes of text.
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export type SanitizeLimits = { maxKeys: number; maxArrayLength: number; maxStringLength: number; maxDepth: number };

export const defaultSanitizeLimits: SanitizeLimits = { maxKeys: 100, maxArrayLength: 16, maxStringLength: 1024, maxDepth: 3 };

// C0 controls other than tab, line feed and carriage return, DEL, and the C1 controls.
// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/** A cleaned string, or undefined when nothing readable is left. */
export function cleanString(value: string, maxLength = defaultSanitizeLimits.maxStringLength): string | undefined {
  const cleaned = value.replace(controlCharacters, '').trim();
  if (cleaned.length === 0) return undefined;
  return cleaned.length > maxLength ? cleaned.slice(0, maxLength) : cleaned;
}

/** `DateTimeOriginal` → `date_time_original`, `FNumber` → `f_number`, `GPSLatitudeRef` → `gps_latitude_ref`. */
export function snakeCase(key: string): string {
  return key
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/**
 * A JSON value for anything a parser returns, or undefined to drop it: dates become ISO
 * strings, byte arrays and functions are dropped, long arrays and deep objects are dropped
 * rather than cut (half a list of GPS numbers would mislead), objects keep their first
 * `maxKeys` entries with snake_case keys.
 */
export function toJsonValue(value: unknown, limits: SanitizeLimits = defaultSanitizeLimits, depth = 0): JsonValue | undefined {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
      return cleanString(value, limits.maxStringLength);
    case 'number':
      return Number.isFinite(value) ? value : undefined;
    case 'boolean':
      return value;
    case 'bigint':
      return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
    case 'object':
      return objectToJson(value, limits, depth);
    default:
      return undefined;
  }
}

function objectToJson(value: object, limits: SanitizeLimits, depth: number): JsonValue | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return undefined;
  if (depth >= limits.maxDepth) return undefined;
  if (Array.isArray(value)) {
    if (value.length > limits.maxArrayLength) return undefined;
    const items = value.map((item: unknown) => toJsonValue(item, limits, depth + 1)).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  const out = jsonObject(Object.entries(value), limits, depth);
  return Object.keys(out).length > 0 ? out : undefined;
}

/** An object of sanitized entries under snake_case keys, at most `maxKeys` of them. */
export function jsonObject(entries: Iterable<[string, unknown]>, limits: SanitizeLimits = defaultSanitizeLimits, depth = 0): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  let count = 0;
  for (const [rawKey, rawValue] of entries) {
    if (count >= limits.maxKeys) break;
    const key = snakeCase(rawKey).slice(0, 64);
    if (key.length === 0 || Object.hasOwn(out, key)) continue;
    const value = toJsonValue(rawValue, limits, depth + 1);
    if (value === undefined) continue;
    out[key] = value;
    count += 1;
  }
  return out;
}

/** Drops undefined entries so that `exactOptionalPropertyTypes` callers can build sections from optional fields. */
export function compact(entries: Record<string, JsonValue | undefined>): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(entries)) if (value !== undefined) out[key] = value;
  return out;
}
