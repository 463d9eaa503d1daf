import { fundingAgencies, type FundingAgencyId } from '@cairn/domain';
import { updateFundingAgency } from '@cairn/contract';
import { executeCommand, httpErrors, implement } from '@cairn/platform';
import { findFundingAgency, presentFundingAgency } from '@cairn/projections';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';

export const updateFundingAgencyRoute = (deps: CommandDeps) =>
  implement(updateFundingAgency, async ({ params, body, context }) => {
    const id = params['id'] as FundingAgencyId;
    const changes: Partial<fundingAgencies.FundingAgencyFields> = {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.abbreviation !== undefined ? { abbreviation: body.abbreviation } : {}),
      ...(body.url !== undefined ? { url: body.url } : {}),
      ...(body.catalog_id !== undefined ? { catalogId: body.catalog_id } : {}),
    };
    const outcome = await executeCommand(
      deps.eventStore,
      fundingAgencies.fundingAgencyDecider,
      fundingAgencies.fundingAgencyStream(id),
      { type: 'ChangeFundingAgency', id, changes },
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    const row = await findFundingAgency(deps.db, id);
    if (!row) throw httpErrors.notFound();
    return { status: 200, body: presentFundingAgency(row), position: outcome.position };
  });
