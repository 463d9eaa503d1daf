import type { projects } from '@cairn/domain';
import { sql } from 'kysely';
import type { Projection } from '../runner/projection.ts';
import type { ReadTrx } from '../schema.ts';

type Event = projects.ProjectEvent;
type Details = Partial<projects.ProjectDetails>;

/** Columns of the details a ProjectCreated or ProjectUpdated carries. */
function detailColumns(details: Details) {
  return {
    ...(details.name !== undefined ? { name: details.name } : {}),
    ...(details.description !== undefined ? { description: details.description } : {}),
    ...(details.geoboundEnabled !== undefined ? { geobound_enabled: details.geoboundEnabled } : {}),
    ...(details.geoboundBasis !== undefined ? { geobound_basis: details.geoboundBasis } : {}),
    ...(details.geoboundAllowedCountries !== undefined ? { geobound_allowed_countries: [...details.geoboundAllowedCountries] } : {}),
    ...(details.geoboundAllowedCountrySetId !== undefined ? { geobound_allowed_country_set: details.geoboundAllowedCountrySetId } : {}),
    ...(details.geoboundDeniedCountrySetId !== undefined ? { geobound_denied_country_set: details.geoboundDeniedCountrySetId } : {}),
    ...(details.geoboundBlockVpn !== undefined ? { geobound_block_vpn: details.geoboundBlockVpn } : {}),
    ...(details.geoboundFailClosed !== undefined ? { geobound_fail_closed: details.geoboundFailClosed } : {}),
  };
}

/** Recounted, not incremented, so that applying an event twice leaves the same count. */
async function recountMembers(trx: ReadTrx, projectId: string): Promise<void> {
  await trx
    .updateTable('projects')
    .set({ member_count: sql<number>`(select count(*)::int from project_members where project_id = ${projectId})` })
    .where('id', '=', projectId)
    .execute();
}

/** Projects, their members and the callers' stars (interface 2.2). */
export const projectsProjection: Projection = {
  name: 'projects',
  version: 1,
  handles: ['ProjectCreated', 'ProjectUpdated', 'ProjectDeleted', 'ProjectMemberAdded', 'ProjectMemberRoleChanged', 'ProjectMemberRemoved', 'ProjectStarred', 'ProjectUnstarred'],
  tables: ['project_stars', 'project_members', 'projects'],
  async apply(trx, recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'ProjectCreated': {
        const { id, organizationId, ownerId, rootCollectionId, name, description, geoboundAllowedCountries, ...geobound } = event.data;
        await trx
          .insertInto('projects')
          .values({
            id,
            organization_id: organizationId,
            owner_id: ownerId,
            root_collection_id: rootCollectionId,
            name,
            description,
            geobound_enabled: geobound.geoboundEnabled,
            geobound_basis: geobound.geoboundBasis,
            geobound_allowed_countries: [...geoboundAllowedCountries],
            geobound_allowed_country_set: geobound.geoboundAllowedCountrySetId,
            geobound_denied_country_set: geobound.geoboundDeniedCountrySetId,
            geobound_block_vpn: geobound.geoboundBlockVpn,
            geobound_fail_closed: geobound.geoboundFailClosed,
            created_at: at,
            updated_at: at,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'ProjectUpdated':
        await trx
          .updateTable('projects')
          .set({ ...detailColumns(event.data.changes), updated_at: at })
          .where('id', '=', event.data.id)
          .execute();
        return;
      case 'ProjectDeleted':
        await trx.deleteFrom('project_stars').where('project_id', '=', event.data.id).execute();
        await trx.deleteFrom('project_members').where('project_id', '=', event.data.id).execute();
        await trx.deleteFrom('projects').where('id', '=', event.data.id).execute();
        return;
      case 'ProjectMemberAdded':
      case 'ProjectMemberRoleChanged': {
        const { projectId, userId, role } = event.data;
        await trx
          .insertInto('project_members')
          .values({ project_id: projectId, user_id: userId, role, created_at: at, updated_at: at })
          .onConflict((oc) => oc.columns(['project_id', 'user_id']).doUpdateSet({ role, updated_at: at }))
          .execute();
        await recountMembers(trx, projectId);
        return;
      }
      case 'ProjectMemberRemoved':
        await trx.deleteFrom('project_members').where('project_id', '=', event.data.projectId).where('user_id', '=', event.data.userId).execute();
        await recountMembers(trx, event.data.projectId);
        return;
      case 'ProjectStarred':
        await trx
          .insertInto('project_stars')
          .values({ user_id: event.data.userId, project_id: event.data.projectId, created_at: at })
          .onConflict((oc) => oc.columns(['user_id', 'project_id']).doNothing())
          .execute();
        return;
      case 'ProjectUnstarred':
        await trx.deleteFrom('project_stars').where('user_id', '=', event.data.userId).where('project_id', '=', event.data.projectId).execute();
        return;
    }
  },
};
