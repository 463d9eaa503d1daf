import type { CommandContext } from '../shared/command-context.ts';
import { assertNever, type Decider } from '../shared/decider.ts';
import { conflict, forbidden, invalid, notFound } from '../shared/errors.ts';
import type { OrganizationCommand } from './commands.ts';
import type { OrganizationEvent } from './events.ts';
import { evolveOrganization, initialOrganizationState, type OrganizationState } from './state.ts';

export function decideOrganization(
  command: OrganizationCommand,
  state: OrganizationState,
  context: CommandContext,
): readonly OrganizationEvent[] {
  if (!context.actor.isSystemAdmin) throw forbidden('permission_denied', 'Only a system administrator may manage organizations.');
  switch (command.type) {
    case 'CreateOrganization':
      if (state.status !== 'absent') throw conflict('already_exists', 'An organization with this id already exists.');
      if (command.name.trim() === '') throw invalid('invalid_name', 'The name must not be blank.');
      if (command.country !== null && !/^[A-Z]{2}$/.test(command.country)) throw invalid('invalid_country', 'The country must be two capital letters.');
      return [{ type: 'OrganizationCreated', data: { id: command.id, name: command.name.trim(), country: command.country } }];
    case 'AddOrganizationMember':
      if (state.status !== 'active') throw notFound('not_found', 'Organization not found.');
      if (state.members.has(command.userId)) throw conflict('already_member', 'The user is already a member of this organization.');
      return [{ type: 'OrganizationMemberAdded', data: { organizationId: command.organizationId, userId: command.userId, role: command.role } }];
    default:
      return assertNever(command);
  }
}

export const organizationDecider: Decider<OrganizationCommand, OrganizationEvent, OrganizationState> = {
  initialState: initialOrganizationState,
  evolve: evolveOrganization,
  decide: decideOrganization,
};

export const organizationStream = (id: string) => `organization-${id}`;
