import type { Copy, ReadExecutor, RowOp } from './row-ops.ts';
import { secondaryUniqueColumns } from './unique-columns.ts';

type DataOp = Exclude<RowOp, { kind: 'custom' }>;

/** Operations that run as one statement: same kind, table and columns, distinct rows. */
export type Step = { readonly kind: 'custom'; readonly run: (db: ReadExecutor) => Promise<void> } | { readonly kind: 'rows'; readonly ops: DataOp[] };

type Open = {
  readonly signature: string;
  readonly table: string;
  /** The table its operations copy columns from (a Copy), if any. */
  readonly reads: string | null;
  readonly ops: DataOp[];
  readonly keys: Set<string>;
  /** The ops' values of some columns (`a,b` -> JSON of their values), built when a delete asks. */
  readonly projections: Map<string, Set<string>>;
};

const columns = (values: object) => Object.keys(values).sort();

/** The columns an update writes: set, added to, kept greatest, or copied. */
const changedColumns = (op: Extract<DataOp, { kind: 'update' }>) => [...columns(op.set), ...columns(op.add), ...columns(op.greatest), ...(op.copy ? Object.keys(op.copy.columns) : [])];

const copyText = (copy: Copy | null) => (copy ? ` copy ${JSON.stringify(copy)}` : '');
const sameCopy = (a: Copy | null, b: Copy | null) => a === b || (a !== null && b !== null && JSON.stringify(a) === JSON.stringify(b));
const readsOf = (op: DataOp) => (op.kind !== 'delete' && op.copy ? op.copy.from : null);

function signatureOf(op: DataOp): string {
  switch (op.kind) {
    case 'insert':
      return `insert ${op.table} (${columns(op.row).join()}) on (${op.key.join()}) ${op.update ? `update ${[...op.update].sort().join()}` : 'nothing'}${copyText(op.copy)}`;
    case 'update':
      return `update ${op.table} set ${columns(op.set).join()} add ${columns(op.add).join()} greatest ${columns(op.greatest).join()} where ${columns(op.match).join()}${copyText(op.copy)}`;
    case 'delete':
      return `delete ${op.table} where ${columns(op.match).join()}`;
  }
}

const sameColumns = (a: object, b: object) => {
  let count = 0;
  for (const key in a) {
    if (!Object.hasOwn(b, key)) return false;
    count += 1;
  }
  for (const _ in b) count -= 1;
  return count === 0;
};

const sameList = (a: readonly string[] | null, b: readonly string[] | null) => a === b || (a !== null && b !== null && a.length === b.length && a.every((x, i) => x === b[i]));

/** Whether two operations have the same signature, checked without building it (a batch's operations mostly share one). */
function sameShape(a: DataOp, b: DataOp): boolean {
  if (a.table !== b.table) return false;
  switch (a.kind) {
    case 'insert':
      return b.kind === 'insert' && sameList(a.key, b.key) && sameList(a.update, b.update) && sameColumns(a.row, b.row) && sameCopy(a.copy, b.copy);
    case 'update':
      return b.kind === 'update' && sameColumns(a.match, b.match) && sameColumns(a.set, b.set) && sameColumns(a.add, b.add) && sameColumns(a.greatest, b.greatest) && sameCopy(a.copy, b.copy);
    case 'delete':
      return b.kind === 'delete' && sameColumns(a.match, b.match);
  }
}

/** The row an operation is about, by the columns that find it. */
function rowKeyOf(op: DataOp): string {
  if (op.kind === 'insert' && op.key.length === 1) {
    // The common case, without building an array: a lone string key stands for itself
    // (JSON of an array always starts with '[', so the two kinds never meet).
    const value = op.row[op.key[0] as string];
    if (typeof value === 'string') return value.startsWith('[') ? JSON.stringify([value]) : value;
  }
  const values = op.kind === 'insert' ? op.key.map((k) => op.row[k]) : columns(op.match).map((k) => op.match[k]);
  return JSON.stringify(values);
}

/** The values of `cols` in what the operation names: an insert's row, an update's or delete's match; null when it does not name them all. */
function valuesOf(op: DataOp, cols: readonly string[]): string | null {
  const source: Readonly<Record<string, unknown>> = op.kind === 'insert' ? op.row : op.match;
  if (!cols.every((c) => Object.hasOwn(source, c))) return null;
  return JSON.stringify(cols.map((c) => source[c]));
}

function projectionOf(step: Open, cols: readonly string[]): Set<string> | null {
  const name = cols.join();
  let values = step.projections.get(name);
  if (!values) {
    values = new Set();
    for (const op of step.ops) {
      const v = valuesOf(op, cols);
      if (v === null) return null;
      values.add(v);
    }
    step.projections.set(name, values);
  }
  return values;
}

/**
 * Whether the delete `op` may run before the step's operations (on the same table) and
 * leave what they leave: it deletes the same rows either way, when none of those the step
 * inserts, finds or changes can match it. Deletes commute. An insert's row (or the row its
 * key finds) cannot match when the delete matches on key columns and the row's values
 * differ; an update's rows cannot when the delete matches on columns of the update's
 * match, with other values, that the update does not set. Moving a delete earlier never
 * breaks a unique constraint: it only frees values sooner.
 */
function deleteMayPass(op: Extract<DataOp, { kind: 'delete' }>, step: Open): boolean {
  const first = step.ops[0];
  if (!first) return true;
  if (first.kind === 'delete') return true;
  const cols = columns(op.match);
  const changed = first.kind === 'update' ? changedColumns(first) : [];
  if (first.kind === 'insert' && !cols.every((c) => first.key.includes(c))) return false;
  if (first.kind === 'update' && (!cols.every((c) => Object.hasOwn(first.match, c)) || cols.some((c) => changed.includes(c)))) return false;
  const values = projectionOf(step, cols);
  return values !== null && !values.has(valuesOf(op, cols) ?? '');
}

/**
 * Whether the insert `op` may run before the step's operations (on the same table) and
 * leave what they leave: they touch other rows, found by the same key with other values,
 * and none of them frees a value a unique index holds (an update setting a key or
 * `unique` column, a delete on a table with unique columns besides its key), which the
 * insert could then take or miss. `unique` names those columns of the table besides its key.
 */
function insertMayPass(op: Extract<DataOp, { kind: 'insert' }>, step: Open, unique: readonly string[]): boolean {
  const first = step.ops[0];
  if (!first) return true;
  const key = [...op.key].sort();
  if (key.length === 0) return false;
  if (first.kind === 'insert') {
    if ([...first.key].sort().join() !== key.join()) return false;
  } else {
    if (!key.every((c) => Object.hasOwn(first.match, c))) return false;
    if (first.kind === 'delete' && unique.length > 0) return false;
    if (first.kind === 'update') {
      const changed = changedColumns(first);
      if (changed.some((c) => key.includes(c) || unique.includes(c))) return false;
    }
  }
  const values = projectionOf(step, key);
  return values !== null && !values.has(valuesOf(op, key) ?? '');
}

/** The rows of `copy.from` that a write names by the copy's match columns (an insert by its key, an update or delete by its match), as JSON of their values; null when it names none so. */
function copiedRowsOf(op: DataOp, theirs: readonly string[]): string | null {
  if (op.kind === 'insert' && [...op.key].sort().join() !== theirs.join()) return null;
  if (op.kind === 'update' && changedColumns(op).some((c) => theirs.includes(c))) return null;
  return valuesOf(op, theirs);
}

/** Whether the copy `op` may run before the step's writes of the table it copies from: they write none of the rows it reads. */
function copyMayPass(op: DataOp, step: Open): boolean {
  const copy = op.kind === 'delete' ? null : op.copy;
  if (!copy) return false;
  const theirs = Object.keys(copy.match).sort();
  const read = valuesOf(op, theirs.map((c) => copy.match[c] as string));
  if (read === null) return false;
  return step.ops.every((written) => {
    const rows = copiedRowsOf(written, theirs);
    return rows !== null && rows !== read;
  });
}

/** Whether the write `op` may run before the step's copies from its table: it writes none of the rows they read. */
function writeMayPassCopy(op: DataOp, step: Open): boolean {
  const first = step.ops[0];
  const copy = first && first.kind !== 'delete' ? first.copy : null;
  if (!copy) return false;
  const theirs = Object.keys(copy.match).sort();
  const written = copiedRowsOf(op, theirs);
  const read = projectionOf(step, theirs.map((c) => copy.match[c] as string));
  return written !== null && read !== null && !read.has(written);
}

/**
 * Gathers a batch's operations into as few statements as keep its meaning. An operation
 * joins the last open statement of its shape unless that one already touches the same
 * row (one statement cannot change a row twice), or an operation on the same table, or a
 * custom step, came in between: then the order between them decides the outcome (a
 * unique value freed by a delete, say), so it starts a statement of its own — except a
 * delete or an insert that provably touches none of the rows in between (deleteMayPass,
 * insertMayPass), so that "create this asset, replace its entries" gathers over a whole
 * batch. Operations on other tables may pass each other: read-model tables have no foreign
 * keys or triggers. `uniqueColumns` says which columns of a table are in a unique index
 * besides its key (secondaryUniqueColumns).
 */
export function planSteps(ops: readonly RowOp[], uniqueColumns: Readonly<Record<string, readonly string[]>> = secondaryUniqueColumns): Step[] {
  const steps: (Step | Open)[] = [];
  let barrier = 0;
  let previous: { readonly op: DataOp; readonly signature: string } | null = null;
  for (const op of ops) {
    if (op.kind === 'custom') {
      steps.push({ kind: 'custom', run: op.run });
      barrier = steps.length;
      continue;
    }
    const signature: string = previous && sameShape(op, previous.op) ? previous.signature : signatureOf(op);
    previous = { op, signature };
    const key = rowKeyOf(op);
    const reads = readsOf(op);
    let target: Open | null = null;
    for (let i = steps.length - 1; i >= barrier; i -= 1) {
      const step = steps[i];
      if (!step || !('signature' in step)) break;
      if (step.signature === signature) {
        if (!step.keys.has(key)) target = step;
        break;
      }
      // A copy reads what the writes before it left, and a write never moves before a copy of the rows it writes.
      if (step.table === reads && !copyMayPass(op, step)) break;
      if (step.reads === op.table && !writeMayPassCopy(op, step)) break;
      if (step.table === op.table && !(op.kind === 'delete' && deleteMayPass(op, step)) && !(op.kind === 'insert' && insertMayPass(op, step, uniqueColumns[op.table] ?? []))) break;
    }
    if (target) {
      target.ops.push(op);
      target.keys.add(key);
      for (const [name, values] of target.projections) {
        const v = valuesOf(op, name.split(','));
        if (v === null) target.projections.delete(name);
        else values.add(v);
      }
    } else {
      steps.push({ signature, table: op.table, reads, ops: [op], keys: new Set([key]), projections: new Map() });
    }
  }
  return steps.map((s) => ('signature' in s ? { kind: 'rows', ops: s.ops } : s));
}

const id = (name: string) => `"${name.replace(/"/g, '""')}"`;
const list = (names: readonly string[], prefix = '') => names.map((n) => `${prefix}${id(n)}`).join(', ');

function matchOf(match: object): string {
  const cols = columns(match);
  // An empty match would change every row: always a mistake in a projection.
  if (cols.length === 0) throw new Error('a row operation without a match');
  return cols.map((c) => `t.${id(c)} = v.${id(c)}`).join(' and ');
}

/**
 * One statement for a run of like operations. The rows travel as one JSON parameter and
 * take the table's own column types through `json_populate_recordset(null::table, ...)`;
 * the table name is unqualified, so a rebuild's search path sends it to the shadow copy.
 */
export function statementFor(ops: readonly DataOp[]): { text: string; rows: unknown[]; plain?: string } {
  const first = ops[0];
  if (!first) throw new Error('an empty step');
  const table = id(first.table);
  const copy = first.kind === 'delete' ? null : first.copy;
  // The other row, as a join to the operations' rows (`c`), and the copied columns' values.
  const copied = copy ? Object.keys(copy.columns).sort() : [];
  const joined = copy ? ` left join ${id(copy.from)} as c on ${Object.entries(copy.match).map(([theirs, ours]) => `c.${id(theirs)} = v.${id(ours)}`).join(' and ')}` : '';
  const copiedValue = (column: string) => `c.${id(copy?.columns[column] ?? column)}`;
  const source = `json_populate_recordset(null::${table}, $1::json) as v${joined}`;
  switch (first.kind) {
    case 'insert': {
      const cols = columns(first.row);
      const conflict = first.key.length === 0 ? '' : first.update === null || first.update.length === 0
        ? ` on conflict (${list(first.key)}) do nothing`
        : ` on conflict (${list(first.key)}) do update set ${first.update.map((c) => `${id(c)} = excluded.${id(c)}`).join(', ')}`;
      const insert = `insert into ${table} (${list([...cols, ...copied])}) select ${[list(cols, 'v.'), ...copied.map(copiedValue)].join(', ')} from ${source}`;
      const rows = ops.map((o) => (o as typeof first).row);
      return conflict ? { text: `${insert}${conflict}`, rows, plain: insert } : { text: insert, rows };
    }
    case 'update': {
      const assignments = [
        ...columns(first.set).map((c) => `${id(c)} = v.${id(c)}`),
        ...columns(first.add).map((c) => `${id(c)} = t.${id(c)} + v.${id(c)}`),
        ...columns(first.greatest).map((c) => `${id(c)} = greatest(t.${id(c)}, v.${id(c)})`),
        ...copied.map((c) => `${id(c)} = ${copiedValue(c)}`),
      ];
      if (assignments.length === 0) return { text: '', rows: [] };
      const where = matchOf(first.match);
      const rows = ops.map((o) => {
        const u = o as typeof first;
        return { ...u.set, ...u.add, ...u.greatest, ...u.match };
      });
      return { text: `update ${table} as t set ${assignments.join(', ')} from ${source} where ${where}`, rows };
    }
    case 'delete': {
      const where = matchOf(first.match);
      return { text: `delete from ${table} as t using ${source} where ${where}`, rows: ops.map((o) => (o as typeof first).match) };
    }
  }
}
