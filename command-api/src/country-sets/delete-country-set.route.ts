import { countrySets } from '@cairn/domain';
import { deleteCountrySet } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { countProjectsReferencing } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { callerOf } from '../projects/project-access.ts';
import { runCommand } from '../run-command.ts';
import { openCountrySet } from './country-set-access.ts';

export const deleteCountrySetRoute = (deps: CommandDeps) =>
  implement(deleteCountrySet, async ({ params, context }) => {
    const id = params['id'] as countrySets.CountrySetId;
    const current = await openCountrySet(deps.db, id, callerOf(context));
    const referencingProjects = await countProjectsReferencing(deps.db, id);
    return runCommand(
      deps,
      context,
      { decider: countrySets.countrySetDecider, stream: countrySets.countrySetStream(id), command: { type: 'DeleteCountrySet', id, authority: { organizationRole: current.organization_role }, referencingProjects } },
      { status: 204 },
    );
  });
