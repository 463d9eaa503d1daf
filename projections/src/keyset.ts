import { sql, type RawBuilder } from 'kysely';

/**
 * Rows strictly after `position` in the order (-created_at, id), the keyset every newest-first
 * listing pages by. The first term alone starts an index scan at the cursor; the rest orders
 * ties of the creation time by id.
 */
export function afterInOrder(createdAt: RawBuilder<unknown>, id: RawBuilder<unknown>, position: { readonly createdAt: string; readonly id: string } | null): RawBuilder<unknown> {
  if (position === null) return sql`true`;
  const at = sql`${position.createdAt}::timestamptz`;
  return sql`${createdAt} <= ${at} and (${createdAt} < ${at} or (${createdAt} = ${at} and ${id} > ${position.id}::uuid))`;
}
