import { countrySets, type OrganizationId } from '@cairn/domain';
import { createCountrySet } from '@cairn/contract';
import { implement, newId } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { callerOf, requireOrganizationStanding } from '../projects/project-access.ts';
import { runCommand } from '../run-command.ts';
import { readBackCountrySet } from './country-set-access.ts';

export const createCountrySetRoute = (deps: CommandDeps) =>
  implement(createCountrySet, async ({ body, context }) => {
    const caller = callerOf(context);
    const organizationId = body.organization_id.toLowerCase() as OrganizationId;
    const standing = await requireOrganizationStanding(deps.db, organizationId, caller);
    const id = newId(context) as countrySets.CountrySetId;
    const command: countrySets.CreateCountrySet = { type: 'CreateCountrySet', id, organizationId, name: body.name, kind: body.kind, countries: body.countries, authority: { organizationRole: standing.role } };
    return runCommand(
      deps,
      context,
      { decider: countrySets.countrySetDecider, stream: countrySets.countrySetStream(id), command, newStream: true },
      { status: 201, ...readBackCountrySet(deps.db, id, caller), headers: { Location: `/api/country-sets/${id}/` } },
    );
  });
