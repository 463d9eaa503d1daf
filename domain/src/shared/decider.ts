import type { CommandContext } from './command-context.ts';
import type { DomainEvent } from './events.ts';

/**
 * The shape every aggregate follows (Emmett's decider): fold events into state, decide
 * new events from a command and the state. Both functions are pure.
 */
export type Decider<Command, Event extends DomainEvent, State> = {
  readonly initialState: State;
  readonly evolve: (state: State, event: Event) => State;
  readonly decide: (command: Command, state: State, context: CommandContext) => readonly Event[];
};

export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
