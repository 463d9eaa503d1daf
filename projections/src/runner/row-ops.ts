import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { ReadModelTables } from '../schema.ts';

type Table = keyof ReadModelTables & string;
type Column<T extends Table> = keyof ReadModelTables[T] & string;
type Values = Readonly<Record<string, unknown>>;

/** What custom steps run against: the projection's transaction. */
export type ReadExecutor = Kysely<ReadModelTables>;

/**
 * What one event does to one read model, as data: the runner applies the operations of a
 * whole batch with one statement per run of like operations (docs/projections.md), or
 * runs them in the append's transaction for inline projections.
 */
export type RowOp =
  | { readonly kind: 'insert'; readonly table: string; readonly row: Values; readonly key: readonly string[]; readonly update: readonly string[] | null; readonly copy: Copy | null }
  | { readonly kind: 'update'; readonly table: string; readonly match: Values; readonly set: Values; readonly add: Values; readonly greatest: Values; readonly copy: Copy | null }
  | { readonly kind: 'delete'; readonly table: string; readonly match: Values }
  | { readonly kind: 'custom'; readonly run: (db: ReadExecutor) => Promise<void> };

/**
 * Columns a row takes from another read model's row as that row stands when the statement
 * runs (a star takes its asset's text): `columns` maps this table's columns to the other's,
 * and the other row is the one whose `match` columns equal this row's (other's column ->
 * this row's column, a value the operation gives). None found, they are null. The planner
 * keeps such an operation after the writes of `from` before it, and writes of this table
 * after it (row-op-plan.ts), so it reads what the events before it left.
 */
export type Copy = { readonly from: string; readonly match: Readonly<Record<string, string>>; readonly columns: Readonly<Record<string, string>> };

/** A copy reads another table, into columns the operation does not also give: the planner orders it against that table's writes, not its own statement's. */
function copyOf(table: string, given: readonly string[], copy: Copy | undefined): Copy | null {
  if (!copy) return null;
  if (copy.from === table) throw new Error(`a row operation on ${table} copies from its own table`);
  const both = Object.keys(copy.columns).filter((c) => given.includes(c));
  if (both.length > 0) throw new Error(`a row operation on ${table} both gives and copies ${both.join(', ')}`);
  return copy;
}

/** The values without their undefined entries (the same object when it has none: most rows, and replays make many). */
function defined(values: object): Values {
  const source = values as Readonly<Record<string, unknown>>;
  for (const key in source) {
    if (source[key] !== undefined) continue;
    const kept: Record<string, unknown> = {};
    for (const k in source) if (source[k] !== undefined) kept[k] = source[k];
    return kept;
  }
  return source;
}

/** A match names every column it gives: an undefined value would silently widen it to more rows. */
function matchOf(values: object): Values {
  const missing = Object.entries(values).filter(([, v]) => v === undefined).map(([k]) => k);
  if (missing.length > 0) throw new Error(`a row operation matches on undefined ${missing.join(', ')}`);
  return values as Values;
}

/** Inserts the row; one that exists already (by `key`) is left as it is. */
export function insert<T extends Table>(table: T, row: Insertable<ReadModelTables[T]>, options: { key: readonly Column<T>[]; copy?: Copy }): RowOp {
  const values = defined(row);
  return { kind: 'insert', table, row: values, key: options.key, update: null, copy: copyOf(table, Object.keys(values), options.copy) };
}

/** Inserts the row, or sets the `update` columns of the one with the same `key`. */
export function upsert<T extends Table>(table: T, row: Insertable<ReadModelTables[T]>, options: { key: readonly Column<T>[]; update: readonly Column<T>[] }): RowOp {
  return { kind: 'insert', table, row: defined(row), key: options.key, update: options.update, copy: null };
}

/**
 * Changes the rows that match: `set` replaces, `add` adds to a number, `greatest` keeps the
 * larger of the stored and the given value (so a late or repeated event never moves it back).
 */
export function update<T extends Table>(
  table: T,
  match: Partial<Selectable<ReadModelTables[T]>>,
  set: Updateable<ReadModelTables[T]>,
  options: { add?: Partial<Record<Column<T>, number>>; greatest?: Updateable<ReadModelTables[T]>; copy?: Copy } = {},
): RowOp {
  const [values, add, greatest] = [defined(set), defined(options.add ?? {}), defined(options.greatest ?? {})];
  return { kind: 'update', table, match: matchOf(match), set: values, add, greatest, copy: copyOf(table, [...Object.keys(values), ...Object.keys(add), ...Object.keys(greatest)], options.copy) };
}

export function remove<T extends Table>(table: T, match: Partial<Selectable<ReadModelTables[T]>>): RowOp {
  return { kind: 'delete', table, match: matchOf(match) };
}

/**
 * A step that must read before it writes. It runs in order, on its own: what comes after
 * it is never moved before it, so it costs a statement or more per event. Use it where
 * the row operations above cannot say what the event does.
 */
export function custom(run: (db: ReadExecutor) => Promise<void>): RowOp {
  return { kind: 'custom', run };
}
