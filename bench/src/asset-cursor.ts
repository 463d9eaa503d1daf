import { createHmac } from 'node:crypto';
import type pg from 'pg';

const micro = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * The X-Next-Cursor that leads to page `page` (pages of `limit`) of the caller's listing,
 * worked out in SQL instead of walking every page before it: the position of the last row
 * of the page before, in the listing's order (the caller's starred assets by
 * -created_at, id; then the others), signed with the deployment's cursor key in the
 * format of query-api/src/assets/page-cursor.ts. The service answers 400 to a cursor it
 * did not sign, so a change of that format shows at once.
 */
export async function deepPageCursor(pool: pg.Pool, caller: string, page: number, limit: number): Promise<string> {
  const principals = (await pool.query<{ p: string[] }>('select cairn_principals($1::uuid) as p', [caller])).rows[0]?.p ?? [];
  const before = (page - 1) * limit;
  if (before < 1) throw new Error('the first page has no cursor');
  const starred = Number(
    (await pool.query<{ n: string }>('select count(*)::text as n from asset_stars s join assets a on a.id = s.asset_id where s.user_id = $1 and a.readers && $2::text[]', [caller, principals])).rows[0]?.n ?? 0,
  );
  const { rows } =
    before <= starred
      ? await pool.query<{ at: string; id: string }>(
          `select ${micro('a.created_at')} as at, a.id from asset_stars s join assets a on a.id = s.asset_id
           where s.user_id = $1 and a.readers && $2::text[] order by s.asset_created_at desc, s.asset_id offset $3 limit 1`,
          [caller, principals, before - 1],
        )
      : await pool.query<{ at: string; id: string }>(
          `select ${micro('a.created_at')} as at, a.id from assets a
           where a.readers && $2::text[] and not exists (select 1 from asset_stars s where s.user_id = $1 and s.asset_id = a.id)
           order by a.created_at desc, a.id offset $3 limit 1`,
          [caller, principals, before - starred - 1],
        );
  const row = rows[0];
  if (!row) throw new Error(`the listing has no page ${page}`);
  const secret = (await pool.query<{ value: string }>("select value from server_secrets where name = 'cursor_key'")).rows[0]?.value;
  if (!secret) throw new Error('no cursor key yet: list once first');
  const payload = Buffer.from(JSON.stringify([before <= starred ? 0 : 1, row.at, row.id])).toString('base64url');
  const signature = createHmac('sha256', Buffer.from(secret, 'base64url')).update(`v1.${payload}`).digest().subarray(0, 16).toString('base64url');
  return `v1.${payload}.${signature}`;
}
