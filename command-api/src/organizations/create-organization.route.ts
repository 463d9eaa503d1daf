import { organizations, type OrganizationId } from '@cairn/domain';
import { createOrganization } from '@cairn/contract';
import { implement, newId } from '@cairn/platform';
import { findOrganization, presentOrganization } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';

export const createOrganizationRoute = (deps: CommandDeps) =>
  implement(createOrganization, async ({ body, context }) => {
    const id = newId(context) as OrganizationId;
    const { caller } = context;
    return runCommand(
      deps,
      context,
      { decider: organizations.organizationDecider, stream: organizations.organizationStream(id), command: { type: 'CreateOrganization', id, name: body.name, country: body.country }, newStream: true },
      {
        status: 201,
        read: async () => (caller ? findOrganization(deps.db, id, caller) : undefined),
        present: presentOrganization,
        headers: { Location: `/api/organizations/${id}/` },
      },
    );
  });
