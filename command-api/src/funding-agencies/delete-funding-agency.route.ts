import { fundingAgencies, type FundingAgencyId } from '@cairn/domain';
import { deleteFundingAgency } from '@cairn/contract';
import { implement } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';

export const deleteFundingAgencyRoute = (deps: CommandDeps) =>
  implement(deleteFundingAgency, async ({ params, context }) => {
    const id = params['id'] as FundingAgencyId;
    return runCommand(
      deps,
      context,
      { decider: fundingAgencies.fundingAgencyDecider, stream: fundingAgencies.fundingAgencyStream(id), command: { type: 'DeleteFundingAgency', id } },
      { status: 204 },
    );
  });
