import { defineContract } from '@cairn/platform';
import { z } from 'zod';
import { dateTime, httpUrl, optionalText, requiredText, uuid } from './fields.ts';

// Interface 2.1 and 4.7; DECISIONS.md 4 names the catalog identifier `catalog_id`.
export const fundingAgencySchema = z
  .object({
    id: uuid,
    name: z.string(),
    abbreviation: z.string(),
    url: z.string(),
    catalog_id: z.string().describe('Identifier of the agency in an external open scholarly catalog.'),
    created_at: dateTime,
  })
  .meta({ id: 'FundingAgency' });

const writableFields = {
  name: requiredText(255),
  abbreviation: optionalText(100),
  url: httpUrl(500),
  catalog_id: optionalText(255),
};

export const fundingAgencyWriteSchema = z.object(writableFields).meta({ id: 'FundingAgencyWrite' });
export const patchedFundingAgencyWriteSchema = z
  .object({
    name: writableFields.name.optional(),
    abbreviation: optionalText(100).optional(),
    url: httpUrl(500).optional(),
    catalog_id: optionalText(255).optional(),
  })
  .meta({ id: 'PatchedFundingAgencyWrite' });

const tag = 'funding-agencies';
const readModels = ['funding-agencies'];

export const listFundingAgencies = defineContract({
  operationId: 'funding_agencies_list',
  method: 'get',
  path: '/api/funding-agencies/',
  summary: 'List funding agencies, ordered by name.',
  tag,
  side: 'query',
  authenticated: true,
  query: z.object({ q: z.string().max(255).optional().describe('Case-insensitive substring of name or abbreviation.') }),
  responses: { 200: { description: 'The funding agencies.', schema: z.array(fundingAgencySchema) } },
  readModels,
});

export const createFundingAgency = defineContract({
  operationId: 'funding_agencies_create',
  method: 'post',
  path: '/api/funding-agencies/',
  summary: 'Create a funding agency (system administrators).',
  tag,
  side: 'command',
  authenticated: true,
  body: fundingAgencyWriteSchema,
  bodyRequired: true,
  responses: { 201: { description: 'Created.', schema: fundingAgencySchema } },
  readModels,
});

export const getFundingAgency = defineContract({
  operationId: 'funding_agencies_retrieve',
  method: 'get',
  path: '/api/funding-agencies/{id}/',
  summary: 'Read one funding agency.',
  tag,
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The funding agency.', schema: fundingAgencySchema } },
  readModels,
});

export const updateFundingAgency = defineContract({
  operationId: 'funding_agencies_partial_update',
  method: 'patch',
  path: '/api/funding-agencies/{id}/',
  summary: 'Change a funding agency (system administrators).',
  tag,
  side: 'command',
  authenticated: true,
  body: patchedFundingAgencyWriteSchema,
  responses: { 200: { description: 'The changed funding agency.', schema: fundingAgencySchema } },
  readModels,
});

export const deleteFundingAgency = defineContract({
  operationId: 'funding_agencies_destroy',
  method: 'delete',
  path: '/api/funding-agencies/{id}/',
  summary: 'Delete a funding agency (system administrators).',
  tag,
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Deleted.' } },
  readModels,
});

export const fundingAgencyContracts = [listFundingAgencies, createFundingAgency, getFundingAgency, updateFundingAgency, deleteFundingAgency];
