import { projects } from '@cairn/domain';
import { updateProject } from '@cairn/contract';
import { httpErrors, implement, type FieldErrors } from '@cairn/platform';
import { findCountrySetOf, type ReadDb } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { authorityOf, openProjectFor, readBackProject, requireManage } from './project-access.ts';

/**
 * Interface 2.2: a set reference must name a set of the project's organization (404 naming
 * the field otherwise, whether the set is missing or another organization's: DECISIONS.md 1),
 * of the matching kind (400: the set is one the caller may see).
 */
async function checkSetReferences(db: ReadDb, organizationId: string, references: Record<string, { id: string | null | undefined; kind: 'allowed' | 'denied' }>): Promise<void> {
  const unknown: string[] = [];
  const errors: FieldErrors = {};
  for (const [field, { id, kind }] of Object.entries(references)) {
    if (id === undefined || id === null) continue;
    const set = await findCountrySetOf(db, id, organizationId);
    if (!set) unknown.push(field);
    else if (set.kind !== kind) errors[field] = [`The country set is not an "${kind}" set.`];
  }
  if (unknown.length > 0) throw httpErrors.unknownReference(unknown, 'The country set was not found among those of the project’s organization.');
  if (Object.keys(errors).length > 0) throw httpErrors.validation(errors);
}

const lowerCased = (id: string | null | undefined) => (typeof id === 'string' ? id.toLowerCase() : id);

export const updateProjectRoute = (deps: CommandDeps) =>
  implement(updateProject, async ({ params, body, context, req }) => {
    const id = params['id'] as projects.ProjectId;
    const { caller, project } = await openProjectFor(deps, id, context, req);
    requireManage(project, caller);
    const allowedSet = lowerCased(body.geobound_allowed_country_set);
    const deniedSet = lowerCased(body.geobound_denied_country_set);
    await checkSetReferences(deps.db, project.organization_id, {
      geobound_allowed_country_set: { id: allowedSet, kind: 'allowed' },
      geobound_denied_country_set: { id: deniedSet, kind: 'denied' },
    });
    const changes: Partial<projects.ProjectDetails> = {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.geobound_enabled !== undefined ? { geoboundEnabled: body.geobound_enabled } : {}),
      ...(body.geobound_basis !== undefined ? { geoboundBasis: body.geobound_basis } : {}),
      ...(body.geobound_allowed_countries !== undefined ? { geoboundAllowedCountries: body.geobound_allowed_countries } : {}),
      ...(allowedSet !== undefined ? { geoboundAllowedCountrySetId: allowedSet } : {}),
      ...(deniedSet !== undefined ? { geoboundDeniedCountrySetId: deniedSet } : {}),
      ...(body.geobound_block_vpn !== undefined ? { geoboundBlockVpn: body.geobound_block_vpn } : {}),
      ...(body.geobound_fail_closed !== undefined ? { geoboundFailClosed: body.geobound_fail_closed } : {}),
    };
    return runCommand(
      deps,
      context,
      { decider: projects.projectDecider, stream: projects.projectStream(id), command: { type: 'ChangeProject', id, changes, authority: authorityOf(project) } },
      { status: 200, ...readBackProject(deps.db, id, caller) },
    );
  });
