import { countrySets } from '@cairn/domain';
import { httpErrors, type Caller } from '@cairn/platform';
import { findVisibleCountrySet, type CountrySetRecord, type ReadDb } from '@cairn/projections';

/** A set the caller may not see is 404 (DECISIONS.md 1); the decider checks the same on the stream. */
export async function openCountrySet(db: ReadDb, id: string, caller: Caller): Promise<CountrySetRecord> {
  const record = await findVisibleCountrySet(db, id, caller);
  if (!record) throw countrySets.countrySetErrors.notFound();
  return record;
}

export async function presentedCountrySet(db: ReadDb, id: string, caller: Caller): Promise<CountrySetRecord> {
  const record = await findVisibleCountrySet(db, id, caller);
  if (!record) throw httpErrors.notFound('Country set not found.');
  return record;
}
