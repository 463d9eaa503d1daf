import { organizations, type OrganizationId } from '@cairn/domain';
import { createOrganization } from '@cairn/contract';
import { executeCommand, httpErrors, implement } from '@cairn/platform';
import { findOrganization, presentOrganization } from '@cairn/projections';
import { randomUUID } from 'node:crypto';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';

export const createOrganizationRoute = (deps: CommandDeps) =>
  implement(createOrganization, async ({ body, context }) => {
    const id = randomUUID() as OrganizationId;
    const outcome = await executeCommand(
      deps.eventStore,
      organizations.organizationDecider,
      organizations.organizationStream(id),
      { type: 'CreateOrganization', id, name: body.name, country: body.country },
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    const caller = context.caller;
    const record = caller ? await findOrganization(deps.db, id, caller) : undefined;
    if (!record) throw httpErrors.notFound();
    return { status: 201, body: presentOrganization(record), position: outcome.position, headers: { Location: `/api/organizations/${id}/` } };
  });
