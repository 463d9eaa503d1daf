import { fundingAgencies, type FundingAgencyId } from '@cairn/domain';
import { deleteFundingAgency } from '@cairn/contract';
import { executeCommand, implement } from '@cairn/platform';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';

export const deleteFundingAgencyRoute = (deps: CommandDeps) =>
  implement(deleteFundingAgency, async ({ params, context }) => {
    const id = params['id'] as FundingAgencyId;
    const outcome = await executeCommand(
      deps.eventStore,
      fundingAgencies.fundingAgencyDecider,
      fundingAgencies.fundingAgencyStream(id),
      { type: 'DeleteFundingAgency', id },
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    return { status: 204, position: outcome.position };
  });
