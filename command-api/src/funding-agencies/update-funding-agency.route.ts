import { fundingAgencies, type FundingAgencyId } from '@cairn/domain';
import { updateFundingAgency } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { findFundingAgency, presentFundingAgency } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';

export const updateFundingAgencyRoute = (deps: CommandDeps) =>
  implement(updateFundingAgency, async ({ params, body, context }) => {
    const id = params['id'] as FundingAgencyId;
    const changes: Partial<fundingAgencies.FundingAgencyFields> = {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.abbreviation !== undefined ? { abbreviation: body.abbreviation } : {}),
      ...(body.url !== undefined ? { url: body.url } : {}),
      ...(body.catalog_id !== undefined ? { catalogId: body.catalog_id } : {}),
    };
    return runCommand(
      deps,
      context,
      { decider: fundingAgencies.fundingAgencyDecider, stream: fundingAgencies.fundingAgencyStream(id), command: { type: 'ChangeFundingAgency', id, changes } },
      { status: 200, read: () => findFundingAgency(deps.db, id), present: presentFundingAgency },
    );
  });
