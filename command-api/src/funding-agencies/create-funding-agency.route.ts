import { fundingAgencies, type FundingAgencyId } from '@cairn/domain';
import { createFundingAgency } from '@cairn/contract';
import { implement, newId } from '@cairn/platform';
import { findFundingAgency, fundingAgencyRead, presentFundingAgency } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';

export const createFundingAgencyRoute = (deps: CommandDeps) =>
  implement(createFundingAgency, async ({ body, context }) => {
    const id = newId(context) as FundingAgencyId;
    const fields = { name: body.name, abbreviation: body.abbreviation, url: body.url, catalogId: body.catalog_id };
    return runCommand(
      deps,
      context,
      { decider: fundingAgencies.fundingAgencyDecider, stream: fundingAgencies.fundingAgencyStream(id), command: { type: 'CreateFundingAgency', id, fields }, newStream: true },
      {
        status: 201,
        read: () => findFundingAgency(deps.db, id),
        readAfterAppend: fundingAgencyRead(deps.db, id),
        present: presentFundingAgency,
        headers: { Location: `/api/funding-agencies/${id}/` },
      },
    );
  });
