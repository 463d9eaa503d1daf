import { fundingAgencies, type FundingAgencyId } from '@cairn/domain';
import { createFundingAgency } from '@cairn/contract';
import { executeCommand, httpErrors, implement } from '@cairn/platform';
import { findFundingAgency, presentFundingAgency } from '@cairn/projections';
import { randomUUID } from 'node:crypto';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';

export const createFundingAgencyRoute = (deps: CommandDeps) =>
  implement(createFundingAgency, async ({ body, context }) => {
    const id = randomUUID() as FundingAgencyId;
    const outcome = await executeCommand(
      deps.eventStore,
      fundingAgencies.fundingAgencyDecider,
      fundingAgencies.fundingAgencyStream(id),
      { type: 'CreateFundingAgency', id, fields: { name: body.name, abbreviation: body.abbreviation, url: body.url, catalogId: body.catalog_id } },
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    const row = await findFundingAgency(deps.db, id);
    if (!row) throw httpErrors.notFound();
    return { status: 201, body: presentFundingAgency(row), position: outcome.position, headers: { Location: `/api/funding-agencies/${id}/` } };
  });
