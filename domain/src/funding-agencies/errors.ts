import { conflict, forbidden, notFound } from '../shared/errors.ts';

export const fundingAgencyErrors = {
  notFound: () => notFound('not_found', 'Funding agency not found.'),
  alreadyExists: () => conflict('already_exists', 'A funding agency with this id already exists.'),
  adminOnly: () => forbidden('permission_denied', 'Only a system administrator may change funding agencies.'),
};
