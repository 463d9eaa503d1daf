import { countrySets } from '@cairn/domain';
import { updateCountrySet } from '@cairn/contract';
import { implement } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { callerOf } from '../projects/project-access.ts';
import { runCommand } from '../run-command.ts';
import { openCountrySet, readBackCountrySet } from './country-set-access.ts';

export const updateCountrySetRoute = (deps: CommandDeps) =>
  implement(updateCountrySet, async ({ params, body, context }) => {
    const caller = callerOf(context);
    const id = params['id'] as countrySets.CountrySetId;
    const current = await openCountrySet(deps.db, id, caller);
    const changes = { ...(body.name !== undefined ? { name: body.name } : {}), ...(body.countries !== undefined ? { countries: body.countries } : {}) };
    return runCommand(
      deps,
      context,
      { decider: countrySets.countrySetDecider, stream: countrySets.countrySetStream(id), command: { type: 'ChangeCountrySet', id, changes, authority: { organizationRole: current.organization_role } } },
      { status: 200, ...readBackCountrySet(deps.db, id, caller) },
    );
  });
