import { assetErrors } from './errors.ts';
import type { AssetDetails, JsonObject, JsonValue } from './events.ts';

/** docs/assets.md: the limits of an asset's fields; the contract states the same to clients. */
export const assetLimits = {
  title: 255,
  alias: 100,
  description: 10_000,
  recordType: 100,
  tagCount: 50,
  tagLength: 100,
  metadataBytes: 65_536,
  metadataDepth: 10,
  metadataKeyLength: 200,
} as const;

/** Depth of a JSON value: a scalar is 0, `{}` is 1. Iterative, so no input can exhaust the stack. */
export function jsonDepth(value: JsonValue): number {
  let deepest = 0;
  const stack: [JsonValue, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [JsonValue, number];
    if (current === null || typeof current !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > assetLimits.metadataDepth) return deepest;
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push([child as JsonValue, depth + 1]);
  }
  return deepest;
}

/** The first metadata key (at any depth) longer than the limit, if any. */
function longKey(value: JsonValue): string | undefined {
  const stack: JsonValue[] = [value];
  while (stack.length > 0) {
    const current = stack.pop() as JsonValue;
    if (current === null || typeof current !== 'object') continue;
    if (Array.isArray(current)) stack.push(...(current as JsonValue[]));
    else
      for (const [key, child] of Object.entries(current)) {
        if (key.length > assetLimits.metadataKeyLength) return key;
        stack.push(child);
      }
  }
  return undefined;
}

/** Why metadata breaks a limit, or null when it keeps them all. */
export function metadataProblem(metadata: unknown): string | null {
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) return 'Metadata must be a JSON object.';
  if (jsonDepth(metadata as JsonObject) > assetLimits.metadataDepth) return `Metadata may nest at most ${assetLimits.metadataDepth} levels deep.`;
  if (Buffer.byteLength(JSON.stringify(metadata)) > assetLimits.metadataBytes) return `Metadata may take at most ${assetLimits.metadataBytes} bytes as JSON.`;
  if (longKey(metadata as JsonObject) !== undefined) return `Metadata keys may be at most ${assetLimits.metadataKeyLength} characters.`;
  return null;
}

/** Tags as stored: trimmed, each once, in the order given. */
export function normalTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.trim()))];
}

/** The limits, checked again in the domain so that no path around HTTP breaks them; trims text. */
export function validDetails<D extends Partial<AssetDetails>>(details: D): D {
  const result: { -readonly [K in keyof AssetDetails]?: AssetDetails[K] } = { ...details };
  const text = (field: string, value: string, max: number, required = false): string => {
    const trimmed = value.trim();
    if (required && trimmed.length === 0) throw assetErrors.invalid(field, `The ${field} may not be blank.`);
    if (trimmed.length > max) throw assetErrors.invalid(field, `The ${field} may be at most ${max} characters.`);
    return trimmed;
  };
  if (details.title !== undefined) result.title = text('title', details.title, assetLimits.title, true);
  if (details.alias !== undefined) result.alias = text('alias', details.alias, assetLimits.alias);
  if (details.description !== undefined) result.description = text('description', details.description, assetLimits.description);
  if (details.recordType !== undefined) result.recordType = text('record_type', details.recordType, assetLimits.recordType);
  if (details.tags !== undefined) {
    const tags = normalTags(details.tags);
    if (tags.length > assetLimits.tagCount) throw assetErrors.invalid('tags', `At most ${assetLimits.tagCount} tags.`);
    if (tags.some((t) => t.length === 0 || t.length > assetLimits.tagLength)) throw assetErrors.invalid('tags', `Each tag is 1 to ${assetLimits.tagLength} characters.`);
    result.tags = tags;
  }
  if (details.metadata !== undefined) {
    const problem = metadataProblem(details.metadata);
    if (problem) throw assetErrors.invalid('metadata', problem);
  }
  return result as D;
}
