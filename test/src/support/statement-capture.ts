import pg from 'pg';
import { createTestDatabase } from './database.ts';

export type CapturedStatement = { readonly text: string; readonly values: unknown[] };

/**
 * A pool on a test database of its own whose clients record every statement they send, so a
 * test can EXPLAIN exactly what a reader ran on seeded data (`captured` is emptied in place).
 */
const isNamed = (config: unknown): config is { text: string; values?: readonly unknown[] } =>
  typeof config === 'object' && config !== null && typeof (config as { text?: unknown }).text === 'string';

export async function capturingPool(): Promise<{ pool: pg.Pool; captured: CapturedStatement[] }> {
  const captured: CapturedStatement[] = [];
  const pool = new pg.Pool({ connectionString: await createTestDatabase(), max: 2 });
  pool.on('connect', (client) => {
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (typeof args[0] === 'string') captured.push({ text: args[0], values: (args[1] as unknown[] | undefined) ?? [] });
      // A statement whose plan is kept comes as a named one (projections/src/prepared-statements.ts).
      else if (isNamed(args[0])) captured.push({ text: args[0].text, values: [...(args[0].values ?? [])] });
      return original(...args);
    };
  });
  return { pool, captured };
}

/** Every Sort node's input size estimate, in a JSON plan. */
export const sortRows = (plan: string) => [...plan.matchAll(/"Node Type":"Sort"[^}]*?"Plan Rows":(\d+)/g)].map((m) => Number(m[1]));
