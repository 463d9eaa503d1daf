import type { organizations, systemAccess, users } from '@cairn/domain';
import { authChannel } from '@cairn/platform';
import { sql } from 'kysely';
import type { Projection } from '../runner/projection.ts';
import { custom, insert, remove, update, upsert } from '../runner/row-ops.ts';

/** Appended by every sign-in (command-api/src/sign-in/record-sign-in.ts). */
type UserSignedIn = { readonly type: 'UserSignedIn'; readonly data: { readonly userId: string } };

type Event = users.UserEvent | organizations.OrganizationEvent | systemAccess.SystemAccessEvent | UserSignedIn;

/**
 * Every process keeps users in memory for authentication (platform/src/auth/auth-cache.ts):
 * a change that decides who may do what is announced, in the transaction that makes it.
 */
const forgetUser = (userId: string) =>
  custom(async (db) => {
    await sql`insert into auth_invalidations (kind, key) values ('user', ${userId})`.execute(db);
    await sql`select pg_notify(${authChannel}, '')`.execute(db);
  });

/**
 * Users, organizations and memberships: what authentication and the admin pages read.
 * `users.is_active` is what the authenticator checks, so a deactivation takes effect
 * for every token of the user once this projection has applied it. Each row, or each
 * column a row's events set, belongs to one stream, so inline appends need no ordering.
 */
export const identityProjection: Projection = {
  name: 'identity',
  // 2: also follows access changes, organization changes and sign-ins (rebuilt once).
  // 3: row operations, applied inline.
  version: 3,
  handles: [
    'UserRegistered',
    'UserDeactivated',
    'UserReactivated',
    'SystemAdminGranted',
    'SystemAdminRevoked',
    'UserSignedIn',
    'OrganizationCreated',
    'OrganizationRenamed',
    'OrganizationCountryChanged',
    'OrganizationMemberAdded',
    'OrganizationMemberRoleChanged',
    'OrganizationMemberRemoved',
  ],
  tables: ['organization_memberships', 'organizations', 'users'],
  project(recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'UserRegistered': {
        const { id, email, name, isSystemAdmin } = event.data;
        return [insert('users', { id, email, name, is_active: true, is_system_admin: isSystemAdmin, created_at: at }, { key: ['id'] })];
      }
      // Enrollment only copies the registration's flag into the system access history.
      case 'UserAccessEnrolled':
        return [];
      case 'UserDeactivated':
      case 'UserReactivated':
        return [update('users', { id: event.data.userId }, { is_active: event.type === 'UserReactivated' }), forgetUser(event.data.userId)];
      case 'SystemAdminGranted':
      case 'SystemAdminRevoked':
        return [update('users', { id: event.data.userId }, { is_system_admin: event.type === 'SystemAdminGranted' }), forgetUser(event.data.userId)];
      case 'UserSignedIn':
        // Monotone, so a replay or an out-of-order pair never moves it back.
        return [update('users', { id: event.data.userId }, {}, { greatest: { last_login: at } })];
      case 'OrganizationCreated': {
        const { id, name, country } = event.data;
        return [insert('organizations', { id, name, country, created_at: at }, { key: ['id'] })];
      }
      case 'OrganizationRenamed':
        return [update('organizations', { id: event.data.id }, { name: event.data.name })];
      case 'OrganizationCountryChanged':
        return [update('organizations', { id: event.data.id }, { country: event.data.country })];
      case 'OrganizationMemberAdded': {
        const { organizationId, userId, role } = event.data;
        return [
          upsert('organization_memberships', { organization_id: organizationId, user_id: userId, role, created_at: at }, { key: ['organization_id', 'user_id'], update: ['role'] }),
        ];
      }
      case 'OrganizationMemberRoleChanged': {
        const { organizationId, userId, role } = event.data;
        return [update('organization_memberships', { organization_id: organizationId, user_id: userId }, { role })];
      }
      case 'OrganizationMemberRemoved': {
        const { organizationId, userId } = event.data;
        return [remove('organization_memberships', { organization_id: organizationId, user_id: userId })];
      }
      default: {
        // A new event type of the union fails to compile until it is handled above.
        const _exhaustive: never = event;
        return [];
      }
    }
  },
};
