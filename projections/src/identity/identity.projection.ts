import type { organizations, systemAccess, users } from '@cairn/domain';
import { authChannel } from '@cairn/platform';
import { sql } from 'kysely';
import type { Projection } from '../runner/projection.ts';
import type { ReadTrx } from '../schema.ts';

/** Appended by every sign-in (command-api/src/sign-in/record-sign-in.ts). */
type UserSignedIn = { readonly type: 'UserSignedIn'; readonly data: { readonly userId: string } };

type Event = users.UserEvent | organizations.OrganizationEvent | systemAccess.SystemAccessEvent | UserSignedIn;

/**
 * Every process keeps users in memory for authentication (platform/src/auth/auth-cache.ts):
 * a change that decides who may do what is announced, in the transaction that makes it.
 */
async function forgetUser(trx: ReadTrx, userId: string): Promise<void> {
  await sql`insert into auth_invalidations (kind, key) values ('user', ${userId})`.execute(trx);
  await sql`select pg_notify(${authChannel}, '')`.execute(trx);
}

/**
 * Users, organizations and memberships: what authentication and the admin pages read.
 * `users.is_active` is what the authenticator checks, so a deactivation takes effect
 * for every token of the user once this projection has applied it.
 */
export const identityProjection: Projection = {
  name: 'identity',
  // 2: also follows access changes, organization changes and sign-ins (rebuilt once).
  version: 2,
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
  async apply(trx, recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'UserRegistered': {
        const { id, email, name, isSystemAdmin } = event.data;
        await trx
          .insertInto('users')
          .values({ id, email, name, is_active: true, is_system_admin: isSystemAdmin, created_at: at })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      // Enrollment only copies the registration's flag into the system access history.
      case 'UserAccessEnrolled':
        return;
      case 'UserDeactivated':
      case 'UserReactivated':
        await trx.updateTable('users').set({ is_active: event.type === 'UserReactivated' }).where('id', '=', event.data.userId).execute();
        await forgetUser(trx, event.data.userId);
        return;
      case 'SystemAdminGranted':
      case 'SystemAdminRevoked':
        await trx.updateTable('users').set({ is_system_admin: event.type === 'SystemAdminGranted' }).where('id', '=', event.data.userId).execute();
        await forgetUser(trx, event.data.userId);
        return;
      case 'UserSignedIn':
        // Monotone, so a replay or an out-of-order pair never moves it back.
        await trx
          .updateTable('users')
          .set({ last_login: at })
          .where('id', '=', event.data.userId)
          .where((eb) => eb.or([eb('last_login', 'is', null), eb('last_login', '<', new Date(at))]))
          .execute();
        return;
      case 'OrganizationCreated': {
        const { id, name, country } = event.data;
        await trx.insertInto('organizations').values({ id, name, country, created_at: at }).onConflict((oc) => oc.column('id').doNothing()).execute();
        return;
      }
      case 'OrganizationRenamed':
        await trx.updateTable('organizations').set({ name: event.data.name }).where('id', '=', event.data.id).execute();
        return;
      case 'OrganizationCountryChanged':
        await trx.updateTable('organizations').set({ country: event.data.country }).where('id', '=', event.data.id).execute();
        return;
      case 'OrganizationMemberAdded': {
        const { organizationId, userId, role } = event.data;
        await trx
          .insertInto('organization_memberships')
          .values({ organization_id: organizationId, user_id: userId, role, created_at: at })
          .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doUpdateSet({ role }))
          .execute();
        return;
      }
      case 'OrganizationMemberRoleChanged': {
        const { organizationId, userId, role } = event.data;
        await trx.updateTable('organization_memberships').set({ role }).where('organization_id', '=', organizationId).where('user_id', '=', userId).execute();
        return;
      }
      case 'OrganizationMemberRemoved': {
        const { organizationId, userId } = event.data;
        await trx.deleteFrom('organization_memberships').where('organization_id', '=', organizationId).where('user_id', '=', userId).execute();
        return;
      }
      default: {
        // A new event type of the union fails to compile until it is handled above.
        const _exhaustive: never = event;
        return;
      }
    }
  },
};
