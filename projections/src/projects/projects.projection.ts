import type { projects } from '@cairn/domain';
import { sql } from 'kysely';
import type { Projection } from '../runner/projection.ts';
import { custom, insert, remove, update, upsert } from '../runner/row-ops.ts';

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
const recountMembers = (projectId: string) =>
  custom(async (db) => {
    await db
      .updateTable('projects')
      .set({ member_count: sql<number>`(select count(*)::int from project_members where project_id = ${projectId})` })
      .where('id', '=', projectId)
      .execute();
  });

/** Projects, their members and the callers' stars (interface 2.2). */
export const projectsProjection: Projection = {
  name: 'projects',
  version: 2,
  handles: ['ProjectCreated', 'ProjectUpdated', 'ProjectDeleted', 'ProjectMemberAdded', 'ProjectMemberRoleChanged', 'ProjectMemberRemoved', 'ProjectStarred', 'ProjectUnstarred'],
  tables: ['project_stars', 'project_members', 'projects'],
  project(recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'ProjectCreated': {
        const { id, organizationId, ownerId, rootCollectionId, name, description, geoboundAllowedCountries, ...geobound } = event.data;
        return [
          insert(
            'projects',
            {
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
            },
            { key: ['id'] },
          ),
        ];
      }
      case 'ProjectUpdated':
        return [update('projects', { id: event.data.id }, { ...detailColumns(event.data.changes), updated_at: at })];
      case 'ProjectDeleted':
        return [remove('project_stars', { project_id: event.data.id }), remove('project_members', { project_id: event.data.id }), remove('projects', { id: event.data.id })];
      case 'ProjectMemberAdded':
      case 'ProjectMemberRoleChanged': {
        const { projectId, userId, role } = event.data;
        return [
          upsert('project_members', { project_id: projectId, user_id: userId, role, created_at: at, updated_at: at }, { key: ['project_id', 'user_id'], update: ['role', 'updated_at'] }),
          recountMembers(projectId),
        ];
      }
      case 'ProjectMemberRemoved':
        return [remove('project_members', { project_id: event.data.projectId, user_id: event.data.userId }), recountMembers(event.data.projectId)];
      case 'ProjectStarred':
        return [insert('project_stars', { user_id: event.data.userId, project_id: event.data.projectId, created_at: at }, { key: ['user_id', 'project_id'] })];
      case 'ProjectUnstarred':
        return [remove('project_stars', { user_id: event.data.userId, project_id: event.data.projectId })];
    }
  },
};
