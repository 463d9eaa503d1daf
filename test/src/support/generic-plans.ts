import type pg from 'pg';

/** A value as PostgreSQL's text input reads it: an array as an array literal. */
const asText = (value: unknown): string =>
  Array.isArray(value) ? `{${value.map((v) => (v === null ? 'NULL' : `"${asText(v).replace(/[\\"]/g, (c) => `\\${c}`)}"`)).join(',')}}` : String(value);

let prepared = 0;

/**
 * The plan PostgreSQL keeps for a statement once it is prepared, as EXPLAIN's JSON: the
 * statement prepared by name and its execution explained with plan_cache_mode =
 * force_generic_plan (an EXPLAIN of the statement itself, its values bound, is planned with
 * those values: a custom plan).
 */
export async function genericPlanOf(client: pg.ClientBase, statement: { readonly text: string; readonly values: readonly unknown[] }): Promise<unknown> {
  prepared += 1;
  const name = `generic_plan_${prepared}`;
  await client.query('set plan_cache_mode = force_generic_plan');
  try {
    await client.query(`prepare ${name} as ${statement.text}`);
    const args = statement.values.map((value) => (value === null ? 'null' : client.escapeLiteral(asText(value)))).join(', ');
    const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(`explain (format json) execute ${name}(${args})`);
    return rows[0]?.['QUERY PLAN'];
  } finally {
    await client.query(`deallocate ${name}`).catch(() => undefined);
    await client.query('reset plan_cache_mode');
  }
}

/** The custom plan of a statement: explained with its values bound, as EXPLAIN's JSON. */
export async function customPlanOf(client: pg.ClientBase, statement: { readonly text: string; readonly values: readonly unknown[] }): Promise<unknown> {
  const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(`explain (format json) ${statement.text}`, [...statement.values]);
  return rows[0]?.['QUERY PLAN'];
}

/** The estimated total cost of a plan from EXPLAIN's JSON. */
export const totalCost = (plan: unknown): number => (plan as [{ Plan: { 'Total Cost': number } }] | undefined)?.[0]?.Plan['Total Cost'] ?? Number.NaN;
