import type { CommandContext } from '../shared/command-context.ts';
import { assertNever, type Decider } from '../shared/decider.ts';
import type { FundingAgencyId } from '../shared/ids.ts';
import type { FundingAgencyCommand } from './commands.ts';
import { fundingAgencyErrors } from './errors.ts';
import type { FundingAgencyEvent, FundingAgencyFields } from './events.ts';
import { evolve, initialState, type FundingAgencyState } from './state.ts';

export function decide(
  command: FundingAgencyCommand,
  state: FundingAgencyState,
  context: CommandContext,
): readonly FundingAgencyEvent[] {
  // Interface 4.7 with issue 2: anyone signed in reads, only system administrators write.
  if (!context.actor.isSystemAdmin) throw fundingAgencyErrors.adminOnly();

  switch (command.type) {
    case 'CreateFundingAgency':
      if (state.status !== 'absent') throw fundingAgencyErrors.alreadyExists();
      return [{ type: 'FundingAgencyCreated', data: { id: command.id, ...command.fields } }];
    case 'ChangeFundingAgency': {
      if (state.status !== 'active') throw fundingAgencyErrors.notFound();
      const changes = changedFields(state.fields, command.changes);
      // A PATCH that changes nothing records nothing.
      if (Object.keys(changes).length === 0) return [];
      return [{ type: 'FundingAgencyUpdated', data: { id: command.id, changes } }];
    }
    case 'DeleteFundingAgency':
      if (state.status !== 'active') throw fundingAgencyErrors.notFound();
      return [{ type: 'FundingAgencyDeleted', data: { id: command.id } }];
    default:
      return assertNever(command);
  }
}

function changedFields(current: FundingAgencyFields, requested: Partial<FundingAgencyFields>): Partial<FundingAgencyFields> {
  const changes: { -readonly [K in keyof FundingAgencyFields]?: FundingAgencyFields[K] } = {};
  for (const key of Object.keys(requested) as (keyof FundingAgencyFields)[]) {
    const value = requested[key];
    if (value !== undefined && value !== current[key]) changes[key] = value;
  }
  return changes;
}

export const fundingAgencyDecider: Decider<FundingAgencyCommand, FundingAgencyEvent, FundingAgencyState> = {
  initialState,
  evolve,
  decide,
};

export const fundingAgencyStream = (id: FundingAgencyId | string) => `funding_agency-${id}`;
