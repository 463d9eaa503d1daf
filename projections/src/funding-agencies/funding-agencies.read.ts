import { lowercaseAsPostgres } from '@cairn/platform';
import { sql } from 'kysely';
import { namedStatement } from '../prepared-statements.ts';
import type { ReadDb } from '../schema.ts';

export type FundingAgencyRow = {
  id: string;
  name: string;
  abbreviation: string;
  url: string;
  catalog_id: string;
  created_at: Date;
};

const columns = ['id', 'name', 'abbreviation', 'url', 'catalog_id', 'created_at'] as const;

const byId = (db: ReadDb, id: string) => db.selectFrom('funding_agencies').select(columns).where('id', '=', id);

export async function findFundingAgency(db: ReadDb, id: string): Promise<FundingAgencyRow | undefined> {
  return byId(db, id).executeTakeFirst();
}

/** The same read as a statement an append can run in its round trip, and the row its rows give. */
export function fundingAgencyRead(db: ReadDb, id: string) {
  return { statement: namedStatement(byId(db, id).compile()), fromRows: (rows: readonly Record<string, unknown>[]) => rows[0] as FundingAgencyRow | undefined };
}

/** Ordered by name; `q` matches a case-insensitive substring of name or abbreviation. */
export async function listFundingAgencies(db: ReadDb, filter: { q?: string | undefined }): Promise<FundingAgencyRow[]> {
  let query = db.selectFrom('funding_agencies').select(columns);
  if (filter.q) {
    const pattern = `%${lowercaseAsPostgres(filter.q).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where(sql<boolean>`(lower(name) like ${pattern} or lower(abbreviation) like ${pattern})`);
  }
  return query.orderBy(sql`lower(name)`).orderBy('id').execute();
}

/** The resource of interface 2.1, as both services answer it. */
export function presentFundingAgency(row: FundingAgencyRow) {
  return {
    id: row.id,
    name: row.name,
    abbreviation: row.abbreviation,
    url: row.url,
    catalog_id: row.catalog_id,
    created_at: row.created_at.toISOString(),
  };
}
