import { Kysely, PostgresDialect, type ColumnType, type Generated, type Transaction } from 'kysely';
import type pg from 'pg';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

export type ReadModelTables = {
  funding_agencies: {
    id: string;
    name: string;
    abbreviation: string;
    url: string;
    catalog_id: string;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  users: {
    id: string;
    email: string;
    name: string;
    is_active: boolean;
    is_system_admin: boolean;
    created_at: Timestamp;
    last_login: Timestamp | null;
  };
  organizations: { id: string; name: string; country: string | null; created_at: Timestamp };
  organization_memberships: { organization_id: string; user_id: string; role: string; created_at: Timestamp };
  projection_checkpoints: {
    name: string;
    version: number;
    major: string;
    minor: string;
    status: 'running' | 'failed' | 'rebuilding';
    error: string | null;
    failed_event_id: string | null;
    events_applied: ColumnType<string, string | number, string | number>;
    updated_at: Generated<Date>;
  };
};

export type ReadDb = Kysely<ReadModelTables>;
export type ReadTrx = Transaction<ReadModelTables>;

export function createReadDb(pool: pg.Pool): ReadDb {
  return new Kysely<ReadModelTables>({ dialect: new PostgresDialect({ pool }) });
}
