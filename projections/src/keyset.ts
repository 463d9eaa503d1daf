import { sql, type RawBuilder } from 'kysely';

/**
 * A value PostgreSQL plans without knowing, as a scalar subquery: put into a statement whose
 * plan is kept (prepared-statements.ts), so that its custom plans are costed as its generic
 * plan is. PostgreSQL plans a prepared statement with its values five times, then keeps the
 * generic plan only if that costs no more than those did; a cursor near the top of the
 * order or a walk's small limit make the custom plans look cheaper than the generic one
 * (which assumes a third of the rows for a bound and a tenth for a limit), so the statement
 * was planned again at every call, planning taking longer than the walk itself
 * (docs/benchmarks.md, nineteenth sitting). Behind a subquery the value is an InitPlan's
 * output: still an index condition or a limit when the plan runs.
 */
export const unplanned = (value: unknown, type: 'timestamptz' | 'uuid' | 'integer' | 'text') => sql`(select ${value}::${sql.raw(type)})`;

/**
 * Rows strictly after `position` in the order (-created_at, id), the keyset every newest-first
 * listing pages by. The first term alone starts an index scan at the cursor; the rest orders
 * ties of the creation time by id. `kept`: a statement whose plan is kept, the position
 * `unplanned`.
 */
export function afterInOrder(createdAt: RawBuilder<unknown>, id: RawBuilder<unknown>, position: { readonly createdAt: string; readonly id: string } | null, kept = false): RawBuilder<unknown> {
  if (position === null) return sql`true`;
  const at = kept ? unplanned(position.createdAt, 'timestamptz') : sql`${position.createdAt}::timestamptz`;
  const after = kept ? unplanned(position.id, 'uuid') : sql`${position.id}::uuid`;
  return sql`${createdAt} <= ${at} and (${createdAt} < ${at} or (${createdAt} = ${at} and ${id} > ${after}))`;
}
