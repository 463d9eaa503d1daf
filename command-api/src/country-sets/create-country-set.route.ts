import { countrySets, type OrganizationId } from '@cairn/domain';
import { createCountrySet } from '@cairn/contract';
import { executeCommand, httpErrors, implement } from '@cairn/platform';
import { organizationStanding, presentCountrySet } from '@cairn/projections';
import { randomUUID } from 'node:crypto';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { callerOf } from '../projects/project-access.ts';
import { presentedCountrySet } from './country-set-access.ts';

export const createCountrySetRoute = (deps: CommandDeps) =>
  implement(createCountrySet, async ({ body, context }) => {
    const caller = callerOf(context);
    const organizationId = body.organization_id.toLowerCase() as OrganizationId;
    const standing = await organizationStanding(deps.db, organizationId, caller.userId);
    // An organization the caller is not in gets the answer an unknown one gets (DECISIONS.md 1).
    if (!standing || (standing.role === null && !caller.isSystemAdmin)) {
      throw httpErrors.validation({ organization_id: ['Unknown organization, or you are not a member of it.'] });
    }
    const id = randomUUID() as countrySets.CountrySetId;
    const outcome = await executeCommand(
      deps.eventStore,
      countrySets.countrySetDecider,
      countrySets.countrySetStream(id),
      { type: 'CreateCountrySet', id, organizationId, name: body.name, kind: body.kind, countries: body.countries, authority: { organizationRole: standing.role } },
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    const record = await presentedCountrySet(deps.db, id, caller);
    return { status: 201, body: presentCountrySet(record), position: outcome.position, headers: { Location: `/api/country-sets/${id}/` } };
  });
