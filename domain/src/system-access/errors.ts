import { conflict, forbidden } from '../shared/errors.ts';

export const systemAccessErrors = {
  adminOnly: () => forbidden('permission_denied', 'Only a system administrator may change the access of users.'),
  lastSystemAdmin: () =>
    conflict('last_system_admin', 'This change would leave no active system administrator; make another user a system administrator first.'),
};
