import { organizations, type OrganizationId } from '@cairn/domain';
import { updateOrganization } from '@cairn/contract';
import { executeCommand, httpErrors, implement } from '@cairn/platform';
import { findOrganization, presentOrganization } from '@cairn/projections';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';

export const updateOrganizationRoute = (deps: CommandDeps) =>
  implement(updateOrganization, async ({ params, body, context }) => {
    const id = params['id'] as OrganizationId;
    const outcome = await executeCommand(
      deps.eventStore,
      organizations.organizationDecider,
      organizations.organizationStream(id),
      { type: 'ChangeOrganization', id, name: body.name, country: body.country },
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    const caller = context.caller;
    const record = caller ? await findOrganization(deps.db, id, caller) : undefined;
    if (!record) throw httpErrors.notFound('Organization not found.');
    return { status: 200, body: presentOrganization(record), position: outcome.position };
  });
