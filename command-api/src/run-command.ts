import type { Decider, DomainEvent } from '@cairn/domain';
import { executeCommand, httpErrors, type OperationResult, type RequestContext } from '@cairn/platform';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from './deps.ts';

/** The decision a route asks for: which decider, on which stream, with which command. */
export type CommandStep<C, E extends DomainEvent, S> = {
  readonly decider: Decider<C, E, S>;
  readonly stream: string;
  readonly command: C;
  /** The stream is named by an id made for this request (a create): no need to read it first. */
  readonly newStream?: boolean;
  /** Turns a domain refusal into the answer this route gives (e.g. a field error). */
  readonly onError?: (error: unknown) => never;
};

/** What the route answers once the write stands and its read models show it. */
export type CommandAnswer<R> =
  | { readonly status: 204 }
  | {
      readonly status: 200 | 201;
      /** Reads the resource back from the read model; absent means 404 (hidden or gone). */
      readonly read: () => Promise<R | undefined>;
      readonly present: (row: R) => unknown;
      readonly headers?: Readonly<Record<string, string>>;
    };

/**
 * The steps every command route shares: decide and append, wait until the read models
 * that show the write have it (DECISIONS.md 5), read the resource back, present it with
 * the write's consistency token. A route states only what is particular to it.
 */
export async function runCommand<C, E extends DomainEvent, S, R>(
  deps: CommandDeps,
  context: RequestContext,
  step: CommandStep<C, E, S>,
  answer: CommandAnswer<R>,
): Promise<OperationResult> {
  const executing = executeCommand(deps.eventStore, step.decider, step.stream, step.command, commandContext(context), commandMetadata(context), { newStream: step.newStream === true });
  const outcome = await (step.onError ? executing.catch(step.onError) : executing);
  await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
  if (answer.status === 204) return { status: 204, position: outcome.position };
  const row = await answer.read();
  if (row === undefined) throw httpErrors.notFound();
  return { status: answer.status, body: answer.present(row), position: outcome.position, ...(answer.headers ? { headers: answer.headers } : {}) };
}
