import { countrySets } from '@cairn/domain';
import { updateCountrySet } from '@cairn/contract';
import { executeCommand, implement } from '@cairn/platform';
import { presentCountrySet } from '@cairn/projections';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { callerOf } from '../projects/project-access.ts';
import { openCountrySet, presentedCountrySet } from './country-set-access.ts';

export const updateCountrySetRoute = (deps: CommandDeps) =>
  implement(updateCountrySet, async ({ params, body, context }) => {
    const caller = callerOf(context);
    const id = params['id'] as countrySets.CountrySetId;
    const current = await openCountrySet(deps.db, id, caller);
    const outcome = await executeCommand(
      deps.eventStore,
      countrySets.countrySetDecider,
      countrySets.countrySetStream(id),
      {
        type: 'ChangeCountrySet',
        id,
        changes: { ...(body.name !== undefined ? { name: body.name } : {}), ...(body.countries !== undefined ? { countries: body.countries } : {}) },
        authority: { organizationRole: current.organization_role },
      },
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    return { status: 200, body: presentCountrySet(await presentedCountrySet(deps.db, id, caller)), position: outcome.position };
  });
