import { organizations, type OrganizationId } from '@cairn/domain';
import { updateOrganization } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { findOrganization, presentOrganization } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';

export const updateOrganizationRoute = (deps: CommandDeps) =>
  implement(updateOrganization, async ({ params, body, context }) => {
    const id = params['id'] as OrganizationId;
    const { caller } = context;
    return runCommand(
      deps,
      context,
      { decider: organizations.organizationDecider, stream: organizations.organizationStream(id), command: { type: 'ChangeOrganization', id, name: body.name, country: body.country } },
      { status: 200, read: async () => (caller ? findOrganization(deps.db, id, caller) : undefined), present: presentOrganization, notFound: 'Organization not found.' },
    );
  });
