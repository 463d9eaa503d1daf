import { countrySets } from '@cairn/domain';
import { deleteCountrySet } from '@cairn/contract';
import { executeCommand, implement } from '@cairn/platform';
import { countProjectsReferencing } from '@cairn/projections';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { callerOf } from '../projects/project-access.ts';
import { openCountrySet } from './country-set-access.ts';

export const deleteCountrySetRoute = (deps: CommandDeps) =>
  implement(deleteCountrySet, async ({ params, context }) => {
    const caller = callerOf(context);
    const id = params['id'] as countrySets.CountrySetId;
    const current = await openCountrySet(deps.db, id, caller);
    const outcome = await executeCommand(
      deps.eventStore,
      countrySets.countrySetDecider,
      countrySets.countrySetStream(id),
      { type: 'DeleteCountrySet', id, authority: { organizationRole: current.organization_role }, referencingProjects: await countProjectsReferencing(deps.db, id) },
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    return { status: 204, position: outcome.position };
  });
