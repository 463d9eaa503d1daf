import type { ProjectedEvent } from '@cairn/platform';
import type { Projection, RowOp } from '@cairn/projections';
import type pg from 'pg';

const id = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Applies the row operations `projection.project()` gives for `events` to tables that hold
 * none of their rows yet, in as few statements as a seed allows: each row's inserts and the
 * updates that follow them are folded into one row before anything is written, then every
 * table gets one `json_populate_recordset` insert per 2,000 rows (the runner's statement
 * shape). That is what the runner's statements would leave, without a statement per event,
 * for a log where every row is inserted before it is updated, in the same call, and no
 * delete finds a row; anything else throws. Columns copied from another table's row (a
 * star's text from its asset) are copied once every row is written: each row then takes
 * the other row's last state, as the runner's statements leave it.
 */
export async function applyFreshRowOps(pool: pg.Pool, projection: Projection, events: readonly ProjectedEvent[]): Promise<void> {
  const tables = new Map<string, Map<string, Record<string, unknown>>>();
  /** `table|column|value` of every pending row's key columns: what a delete would find. */
  const keyValues = new Set<string>();
  const keyOf = (table: string, columns: readonly string[], values: Readonly<Record<string, unknown>>) => `${table}|${JSON.stringify(columns.map((c) => values[c]))}`;
  const keyColumns = new Map<string, readonly string[]>();
  const copies = new Map<string, { readonly table: string; readonly copy: NonNullable<Extract<RowOp, { kind: 'insert' }>['copy']> }>();
  for (const event of events) {
    if (!projection.handles.includes(event.type)) continue;
    for (const op of projection.project(event) as RowOp[]) {
      if ((op.kind === 'insert' || op.kind === 'update') && op.copy) copies.set(`${op.table} ${JSON.stringify(op.copy)}`, { table: op.table, copy: op.copy });
      switch (op.kind) {
        case 'insert': {
          keyColumns.set(op.table, op.key);
          const rows = tables.get(op.table) ?? new Map<string, Record<string, unknown>>();
          tables.set(op.table, rows);
          const key = keyOf(op.table, op.key, op.row);
          const existing = rows.get(key);
          if (existing && op.update) for (const column of op.update) existing[column] = op.row[column];
          if (!existing) {
            rows.set(key, { ...op.row });
            for (const column of op.key) keyValues.add(`${op.table}|${column}|${String(op.row[column])}`);
          }
          break;
        }
        case 'update': {
          const key = keyColumns.get(op.table);
          const row = key && Object.keys(op.match).length === key.length ? tables.get(op.table)?.get(keyOf(op.table, key, op.match)) : undefined;
          if (!row || Object.keys(op.add).length > 0 || Object.keys(op.greatest).length > 0) throw new Error(`bulk seeding cannot apply an update of ${op.table} that is not of a row inserted before it`);
          Object.assign(row, op.set);
          break;
        }
        case 'delete':
          if (Object.entries(op.match).some(([column, value]) => keyValues.has(`${op.table}|${column}|${String(value)}`))) throw new Error(`bulk seeding cannot apply a delete of ${op.table} rows`);
          break;
        case 'custom':
          throw new Error('bulk seeding cannot apply custom row operations');
      }
    }
  }
  for (const [table, rows] of tables) {
    const bySignature = new Map<string, Record<string, unknown>[]>();
    for (const row of rows.values()) {
      const signature = Object.keys(row).sort().join();
      const list = bySignature.get(signature);
      if (list) list.push(row);
      else bySignature.set(signature, [row]);
    }
    for (const [signature, list] of bySignature) {
      const columns = signature.split(',').map(id).join(', ');
      const source = `json_populate_recordset(null::${id(table)}, $1::json)`;
      for (let i = 0; i < list.length; i += 2000) {
        await pool.query(`insert into ${id(table)} (${columns}) select ${columns} from ${source}`, [JSON.stringify(list.slice(i, i + 2000))]);
      }
    }
  }
  for (const { table, copy } of copies.values()) {
    const set = Object.entries(copy.columns).map(([ours, theirs]) => `${id(ours)} = c.${id(theirs)}`).join(', ');
    const on = Object.entries(copy.match).map(([theirs, ours]) => `c.${id(theirs)} = t.${id(ours)}`).join(' and ');
    // Rows of earlier calls took theirs already: only those still without a copy (the whole table is read, not rewritten).
    const fresh = Object.keys(copy.columns).map((ours) => `t.${id(ours)} is null`).join(' and ');
    await pool.query(`update ${id(table)} as t set ${set} from ${id(copy.from)} as c where ${on} and ${fresh}`);
  }
}

/**
 * Drops the tables' secondary indexes (all but primary keys and unique constraints) for
 * `work`, then builds them again from their own definitions, two at a time (two cores), as
 * a rebuild does after its replay.
 */
export async function withSecondaryIndexesDropped(pool: pg.Pool, tables: readonly string[], work: () => Promise<void>): Promise<{ indexSeconds: number }> {
  const { rows } = await pool.query<{ name: string; definition: string }>(
    `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as definition from pg_index i
     where i.indrelid = any($1::regclass[]) and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`,
    [tables.map((t) => `public.${t}`)],
  );
  for (const index of rows) await pool.query(`drop index ${index.name}`);
  await work();
  const started = performance.now();
  const pending = [...rows];
  await Promise.all(
    [0, 1].map(async () => {
      for (let index = pending.shift(); index; index = pending.shift()) {
        const client = await pool.connect();
        try {
          await client.query("set maintenance_work_mem = '512MB'");
          await client.query(index.definition);
        } finally {
          client.release();
        }
      }
    }),
  );
  return { indexSeconds: (performance.now() - started) / 1000 };
}
