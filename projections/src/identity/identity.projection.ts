import type { organizations, users } from '@cairn/domain';
import type { Projection } from '../runner/projection.ts';

type Event = users.UserEvent | organizations.OrganizationEvent;

/** Users, organizations and memberships: what authentication and the admin pages read. */
export const identityProjection: Projection = {
  name: 'identity',
  version: 1,
  handles: ['UserRegistered', 'OrganizationCreated', 'OrganizationMemberAdded'],
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
      case 'OrganizationCreated': {
        const { id, name, country } = event.data;
        await trx.insertInto('organizations').values({ id, name, country, created_at: at }).onConflict((oc) => oc.column('id').doNothing()).execute();
        return;
      }
      case 'OrganizationMemberAdded': {
        const { organizationId, userId, role } = event.data;
        await trx
          .insertInto('organization_memberships')
          .values({ organization_id: organizationId, user_id: userId, role, created_at: at })
          .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doUpdateSet({ role }))
          .execute();
        return;
      }
    }
  },
};
