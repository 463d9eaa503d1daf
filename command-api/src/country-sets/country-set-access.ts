import { countrySets } from '@cairn/domain';
import type { Caller } from '@cairn/platform';
import { findVisibleCountrySet, presentCountrySet, type CountrySetRecord, type ReadDb } from '@cairn/projections';

/** A set the caller may not see is 404 (DECISIONS.md 1); the decider checks the same on the stream. */
export async function openCountrySet(db: ReadDb, id: string, caller: Caller): Promise<CountrySetRecord> {
  const record = await findVisibleCountrySet(db, id, caller);
  if (!record) throw countrySets.countrySetErrors.notFound();
  return record;
}

/** The set read back after a write, as the caller sees it. */
export function readBackCountrySet(db: ReadDb, id: string, caller: Caller) {
  return { read: () => findVisibleCountrySet(db, id, caller), present: presentCountrySet, notFound: 'Country set not found.' };
}
