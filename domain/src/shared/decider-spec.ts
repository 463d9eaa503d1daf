import type { CommandContext } from './command-context.ts';
import type { Decider } from './decider.ts';
import { DomainError } from './errors.ts';
import type { DomainEvent } from './events.ts';

/**
 * Given/when/then for the decider specs: `given(events).when(command)` folds the events,
 * decides, and answers the new events or the code of the domain's refusal (specs match
 * codes, never messages). Any other error is a bug and is thrown.
 */
export function givenFor<C, E extends DomainEvent, S>(decider: Decider<C, E, S>, defaultContext: CommandContext) {
  return (events: readonly E[]) => {
    const state = events.reduce(decider.evolve, decider.initialState);
    return {
      state,
      when(command: C, context: CommandContext = defaultContext): { events: readonly E[]; code: string | null } {
        try {
          return { events: decider.decide(command, state, context), code: null };
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          return { events: [], code: error.code };
        }
      },
    };
  };
}
