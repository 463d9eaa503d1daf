import { conflict, notFound } from '../shared/errors.ts';

export const webhookErrors = {
  // Another user's subscription is answered exactly like an unknown id (DECISIONS.md 1).
  notFound: () => notFound('not_found', 'Webhook not found.'),
  alreadyExists: () => conflict('already_exists', 'A webhook with this id already exists.'),
};
