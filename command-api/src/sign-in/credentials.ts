import { users } from '@cairn/domain';
import { isStorableText, verifyPassword } from '@cairn/platform';
import type pg from 'pg';

// Verifying against this when the account does not exist keeps both answers equally slow.
const absentAccountHash = '$argon2id$v=19$m=19456,t=2,p=1$xN2Jxu5gtG4C+elbNHZpFQ$bvBbC2+OcbqwzRxwM0I+StgI7ZkS4A6vLnE2mKYKGPs';

/** The user whose e-mail and password these are, if any; the same work either way. */
export async function checkCredentials(pool: pg.Pool, email: string, password: string): Promise<{ id: string } | null> {
  if (!isStorableText(email)) email = '';
  const { rows } = await pool.query<{ id: string; password_hash: string }>(
    `select u.id, c.password_hash from users u join user_credentials c on c.user_id = u.id
     where u.email = $1 and u.is_active`,
    [users.normalizeEmail(email)],
  );
  const row = rows[0];
  const ok = await verifyPassword(row?.password_hash ?? absentAccountHash, password);
  return row && ok ? { id: row.id } : null;
}
