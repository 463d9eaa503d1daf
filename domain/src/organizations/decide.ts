import type { CommandContext } from '../shared/command-context.ts';
import { assertNever, type Decider } from '../shared/decider.ts';
import type { ChangeOrganization, OrganizationCommand } from './commands.ts';
import { organizationErrors } from './errors.ts';
import type { OrganizationEvent } from './events.ts';
import { evolveOrganization, initialOrganizationState, type OrganizationState } from './state.ts';

const countryPattern = /^[A-Z]{2}$/;

/**
 * Only system administrators change organizations. Anyone else meets the rule of
 * DECISIONS.md 1: a member (who may see the organization) is refused, a non-member is
 * told it does not exist.
 */
function authorize(command: OrganizationCommand, state: OrganizationState, context: CommandContext): void {
  if (context.actor.isSystemAdmin) return;
  if (command.type === 'CreateOrganization') throw organizationErrors.adminOnly();
  const member = state.status === 'active' && context.actor.userId !== null && state.members.has(context.actor.userId);
  throw member ? organizationErrors.adminOnly() : organizationErrors.notFound();
}

function validName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw organizationErrors.blankName();
  return trimmed;
}

function validCountry(country: string | null): string | null {
  if (country !== null && !countryPattern.test(country)) throw organizationErrors.badCountry();
  return country;
}

function decideChange(command: ChangeOrganization, state: OrganizationState): readonly OrganizationEvent[] {
  if (state.status !== 'active') throw organizationErrors.notFound();
  const events: OrganizationEvent[] = [];
  if (command.name !== undefined) {
    const name = validName(command.name);
    if (name !== state.name) events.push({ type: 'OrganizationRenamed', data: { id: command.id, name } });
  }
  if (command.country !== undefined) {
    const country = validCountry(command.country);
    if (country !== state.country) events.push({ type: 'OrganizationCountryChanged', data: { id: command.id, country } });
  }
  return events;
}

export function decideOrganization(command: OrganizationCommand, state: OrganizationState, context: CommandContext): readonly OrganizationEvent[] {
  authorize(command, state, context);
  switch (command.type) {
    case 'CreateOrganization':
      if (state.status !== 'absent') throw organizationErrors.alreadyExists();
      return [{ type: 'OrganizationCreated', data: { id: command.id, name: validName(command.name), country: validCountry(command.country) } }];
    case 'ChangeOrganization':
      return decideChange(command, state);
    case 'AddOrganizationMember':
      if (state.status !== 'active') throw organizationErrors.notFound();
      if (state.members.has(command.userId)) throw organizationErrors.alreadyMember();
      return [{ type: 'OrganizationMemberAdded', data: { organizationId: command.organizationId, userId: command.userId, role: command.role } }];
    case 'ChangeOrganizationMemberRole': {
      if (state.status !== 'active') throw organizationErrors.notFound();
      const role = state.members.get(command.userId);
      if (role === undefined) throw organizationErrors.notMember();
      if (command.role === undefined || role === command.role) return [];
      return [{ type: 'OrganizationMemberRoleChanged', data: { organizationId: command.organizationId, userId: command.userId, role: command.role } }];
    }
    case 'RemoveOrganizationMember':
      if (state.status !== 'active') throw organizationErrors.notFound();
      if (!state.members.has(command.userId)) throw organizationErrors.notMember();
      return [{ type: 'OrganizationMemberRemoved', data: { organizationId: command.organizationId, userId: command.userId } }];
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
