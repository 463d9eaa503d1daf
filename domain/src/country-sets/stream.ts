import type { CountrySetId } from './events.ts';

export const countrySetStream = (id: CountrySetId | string) => `country_set-${id}`;
