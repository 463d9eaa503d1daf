import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';

/** How many of a copy's indexes are built at once (docs/projections.md, "Rebuilding"). */
const indexLanes = 2;

/**
 * Builds the copy's other indexes, two at a time on their own connections, inverted
 * (GIN, GiST) ones first: they take longest, so the others fill in beside them. All at
 * once was slower on two cores, and a rebuild runs beside live traffic. Memory is the
 * server's `maintenance_work_mem`: a trigram index over a million rows built faster with
 * the default 64 MB than with 256 MB.
 */
export async function buildIndexes(db: ReadDb, definitions: readonly string[]): Promise<void> {
  const inverted = (definition: string) => / USING (gin|gist) /i.test(definition);
  const queue = [...definitions.filter(inverted), ...definitions.filter((d) => !inverted(d))];
  // After a failure no lane takes more work, and every lane has ended before the caller
  // drops the copy: a late build must not land on the next rebuild's copy.
  const errors: unknown[] = [];
  const lane = async () => {
    for (let definition = queue.shift(); definition !== undefined && errors.length === 0; definition = queue.shift()) {
      await sql.raw(definition).execute(db).catch((error: unknown) => void errors.push(error));
    }
  };
  await Promise.all(Array.from({ length: Math.min(indexLanes, queue.length) }, lane));
  if (errors.length > 0) throw errors[0];
}
