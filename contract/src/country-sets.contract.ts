import { defineContract } from '@cairn/platform';
import { z } from 'zod';
import { dateTime, requiredText, uuid } from './fields.ts';

// Named country sets that projects' geographic restrictions reference (docs/projects.md).
const kinds = ['allowed', 'denied'] as const;
const countryCodes = z
  .array(z.string().regex(/^[A-Z]{2}$/, 'Enter a two-letter country code in capitals (ISO 3166-1 alpha-2), matching ^[A-Z]{2}$.'))
  .max(300, 'Ensure this list has no more than 300 countries.');

export const countrySetSchema = z
  .object({
    id: uuid,
    organization_id: uuid,
    name: z.string().max(255),
    kind: z.enum(kinds).describe('`allowed` sets are referenced as allowed countries, `denied` sets as denied ones.'),
    countries: z.array(z.string()).describe('ISO 3166-1 alpha-2 codes, sorted, each once.'),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'CountrySet' });

export const countrySetCreateSchema = z
  .object({
    organization_id: z.uuid({ error: 'Must be a UUID.' }),
    name: requiredText(255),
    kind: z.enum(kinds, { error: 'Must be one of allowed, denied.' }),
    countries: countryCodes.default([]),
  })
  .meta({ id: 'CountrySetCreate' });

export const patchedCountrySetSchema = z
  .object({ name: requiredText(255).optional(), countries: countryCodes.optional() })
  .meta({ id: 'PatchedCountrySet' });

const tag = 'country-sets';
const readModels = ['identity', 'country-sets'];

export const listCountrySets = defineContract({
  operationId: 'country_sets_list',
  method: 'get',
  path: '/api/country-sets/',
  summary: "List the country sets of the caller's organizations (every set for a system administrator), ordered by name.",
  tag,
  side: 'query',
  authenticated: true,
  query: z.object({
    organization_id: z.uuid({ error: 'Must be a UUID.' }).optional().describe('Only sets of this organization.'),
    kind: z.enum(kinds, { error: 'Must be one of allowed, denied.' }).optional().describe('Only sets of this kind.'),
  }),
  responses: { 200: { description: 'The country sets.', schema: z.array(countrySetSchema) } },
  readModels,
});

export const createCountrySet = defineContract({
  operationId: 'country_sets_create',
  method: 'post',
  path: '/api/country-sets/',
  summary: 'Create a country set (organization admins and system administrators).',
  tag,
  side: 'command',
  authenticated: true,
  body: countrySetCreateSchema,
  bodyRequired: true,
  responses: { 201: { description: 'Created.', schema: countrySetSchema } },
  readModels,
});

export const getCountrySet = defineContract({
  operationId: 'country_sets_retrieve',
  method: 'get',
  path: '/api/country-sets/{id}/',
  summary: 'Read one country set (members of its organization).',
  tag,
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The country set.', schema: countrySetSchema } },
  readModels,
});

export const updateCountrySet = defineContract({
  operationId: 'country_sets_partial_update',
  method: 'patch',
  path: '/api/country-sets/{id}/',
  summary: "Rename a country set or replace its countries (organization admins and system administrators); projects referencing it follow at once.",
  tag,
  side: 'command',
  authenticated: true,
  body: patchedCountrySetSchema,
  responses: { 200: { description: 'The changed country set.', schema: countrySetSchema } },
  readModels,
});

export const deleteCountrySet = defineContract({
  operationId: 'country_sets_destroy',
  method: 'delete',
  path: '/api/country-sets/{id}/',
  summary: 'Delete a country set that no project references (organization admins and system administrators).',
  tag,
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Deleted.' } },
  readModels,
});

export const countrySetContracts = [listCountrySets, createCountrySet, getCountrySet, updateCountrySet, deleteCountrySet];
