/**
 * A readable "what changed" for any event (docs/audit.md): each stream keeps a view, the
 * merge of its events' fields (an event with `changes` merges those); the diff is every
 * field whose value the event changed, with the value before and after.
 */
export type FieldChange = { readonly before: unknown; readonly after: unknown };
export type StreamView = Readonly<Record<string, unknown>>;

const identityFields = new Set(['id', 'assetId']);

export function fieldsOf(data: unknown): Record<string, unknown> {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return { value: data };
  const record = data as Record<string, unknown>;
  const changes = record['changes'];
  if (changes !== null && typeof changes === 'object' && !Array.isArray(changes)) {
    const { changes: _changes, ...rest } = record;
    return { ...rest, ...(changes as Record<string, unknown>) };
  }
  return record;
}

export function diffEvent(view: StreamView, data: unknown): { readonly view: StreamView; readonly changes: Readonly<Record<string, FieldChange>> } {
  const fields = fieldsOf(data);
  const changes: Record<string, FieldChange> = {};
  for (const [field, after] of Object.entries(fields)) {
    if (identityFields.has(field) && field in view) continue;
    const before = view[field];
    if (JSON.stringify(before) !== JSON.stringify(after)) changes[field] = { before: before ?? null, after };
  }
  return { view: { ...view, ...fields }, changes };
}
