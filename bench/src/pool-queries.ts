import type pg from 'pg';

/** The `id` of a statement's first row, or '' when it has none. */
export const idOf = async (pool: pg.Pool, text: string, values: unknown[]) => (await pool.query<{ id: string }>(text, values)).rows[0]?.id ?? '';

/** The number `n` (sent as text) of a statement's first row, or 0. */
export const countOf = async (pool: pg.Pool, text: string, values: unknown[] = []) => Number((await pool.query<{ n: string }>(text, values)).rows[0]?.n ?? 0);
