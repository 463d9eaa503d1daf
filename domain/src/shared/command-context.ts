/**
 * Everything impure that a decision needs arrives here: the clock and new ids are read
 * by the caller, so `decide` stays a pure function.
 */
export type Actor = {
  readonly userId: string | null;
  readonly isSystemAdmin: boolean;
};

export type CommandContext = {
  readonly actor: Actor;
  readonly now: string;
};

export const operatorActor: Actor = { userId: null, isSystemAdmin: true };
