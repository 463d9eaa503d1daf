import { createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';
import { httpErrors, onPrimary } from '@cairn/platform';
import type { PagePosition, ReadDb } from '@cairn/projections';
import { sql } from 'kysely';

/**
 * Cursors are opaque to clients: `v1.<position>.<signature>`, the position as base64url
 * JSON and an HMAC-SHA256 (first 16 bytes) under a key made once per deployment and kept
 * in `server_secrets`, so every process of a split deployment accepts every other's.
 * A cursor that is malformed, of another version or tampered with is 400.
 */
export type CursorCodec = {
  encode(position: PagePosition): string;
  decode(cursor: string | undefined): PagePosition | null;
  /** Other listings' keys: a kind (say, the ordering) and its values; a cursor of another kind is invalid. */
  encodeKey(kind: string, values: readonly (string | null)[]): string;
  decodeKey(cursor: string | undefined, kind: string, count: number): (string | null)[] | null;
};

const invalid = () => httpErrors.badRequest('invalid_cursor', 'The cursor is not one this service issued; start again without it.');
const timePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function cursorCodec(key: Buffer): CursorCodec {
  // A KeyObject made once: an HMAC keyed by a Buffer imports the key again on every call (5x slower).
  const secret = createSecretKey(key);
  const sign = (payload: string) => createHmac('sha256', secret).update(`v1.${payload}`).digest().subarray(0, 16);
  const open = (cursor: string): unknown => {
    if (cursor.length > 1000) throw invalid();
    const [version, payload, signature, ...rest] = cursor.split('.');
    if (version !== 'v1' || !payload || !signature || rest.length > 0) throw invalid();
    const given = Buffer.from(signature, 'base64url');
    const expected = sign(payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
    try {
      return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalid();
    }
  };
  const seal = (values: unknown[]) => {
    const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
    return `v1.${payload}.${sign(payload).toString('base64url')}`;
  };
  return {
    encodeKey(kind, values) {
      return seal(['k', kind, ...values]);
    },
    decodeKey(cursor, kind, count) {
      if (cursor === undefined || cursor === '') return null;
      const parsed = open(cursor);
      if (!Array.isArray(parsed) || parsed.length !== count + 2 || parsed[0] !== 'k' || parsed[1] !== kind) throw invalid();
      const values = parsed.slice(2) as unknown[];
      if (!values.every((v) => v === null || (typeof v === 'string' && v.length <= 600))) throw invalid();
      return values as (string | null)[];
    },
    encode(position) {
      const payload = Buffer.from(JSON.stringify([position.phase === 'starred' ? 0 : 1, position.createdAt, position.id])).toString('base64url');
      return `v1.${payload}.${sign(payload).toString('base64url')}`;
    },
    decode(cursor) {
      if (cursor === undefined || cursor === '') return null;
      if (cursor.length > 1000) throw invalid();
      const [version, payload, signature, ...rest] = cursor.split('.');
      if (version !== 'v1' || !payload || !signature || rest.length > 0) throw invalid();
      const given = Buffer.from(signature, 'base64url');
      const expected = sign(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        throw invalid();
      }
      if (!Array.isArray(parsed) || parsed.length !== 3) throw invalid();
      const [phase, createdAt, id] = parsed as unknown[];
      if ((phase !== 0 && phase !== 1) || typeof createdAt !== 'string' || !timePattern.test(createdAt) || typeof id !== 'string' || !uuidPattern.test(id)) throw invalid();
      return { phase: phase === 0 ? 'starred' : 'rest', createdAt, id };
    },
  };
}

const codecs = new WeakMap<ReadDb, Promise<CursorCodec>>();

/** The deployment's codec, its key made by the first process that needs it (like the other server secrets). */
export function cursorCodecOf(db: ReadDb): Promise<CursorCodec> {
  let codec = codecs.get(db);
  if (!codec) {
    // Made on the primary: a standby the request reads from takes no writes (docs/consistency.md, "Standbys").
    codec = onPrimary(async () => {
      const fresh = JSON.stringify(randomBytes(32).toString('base64url'));
      await sql`insert into server_secrets (name, value) values ('cursor_key', ${fresh}::jsonb) on conflict do nothing`.execute(db);
      const { rows } = await sql<{ value: string }>`select value from server_secrets where name = 'cursor_key'`.execute(db);
      const value = rows[0]?.value;
      if (!value) throw new Error('the cursor key is missing');
      return cursorCodec(Buffer.from(value, 'base64url'));
    });
    codec.catch(() => codecs.delete(db));
    codecs.set(db, codec);
  }
  return codec;
}

/** Interface 4.3.2. */
export function pageHeaders(page: { limit: number; hasMore: boolean; next: PagePosition | null }, codec: CursorCodec): Record<string, string> {
  return {
    'X-Page-Limit': String(page.limit),
    'X-Has-More': String(page.hasMore),
    ...(page.hasMore && page.next ? { 'X-Next-Cursor': codec.encode(page.next) } : {}),
  };
}
