import type { Decider, DomainEvent } from '@cairn/domain';
import { executeCommand, httpErrors, type CommandOutcome, type OperationResult, type ReadAfterAppend, type RequestContext } from '@cairn/platform';
import { projectionsHandling } from '@cairn/projections';
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
  /**
   * Events the same request appended before, on another stream (a project's root
   * collection): the answer waits until the read models show them too.
   */
  readonly after?: readonly DomainEvent[];
};

/** What the route answers once the write stands and its read models show it. */
export type CommandAnswer<R> =
  /** The status alone, without a body. */
  | { readonly status: 200 | 201 | 204 }
  | {
      readonly status: 200 | 201;
      /** Reads the resource back from the read model; absent means 404 (hidden or gone). */
      readonly read: () => Promise<R | undefined>;
      /**
       * The same read as one statement, which the append may run in its own round trip and
       * transaction (docs/consistency.md); used when every read model of the events is inline.
       */
      readonly readAfterAppend?: { readonly statement: ReadAfterAppend; readonly fromRows: (rows: readonly Record<string, unknown>[]) => R | undefined };
      readonly present: (row: R) => unknown;
      /** `present` gives JSON text already serialized (built by PostgreSQL). */
      readonly raw?: boolean;
      readonly headers?: Readonly<Record<string, string>>;
      /** The detail of that 404, where the route names what is missing. */
      readonly notFound?: string;
    };

/** Decides and appends one step, with the route's error mapping; no waiting. */
export async function executeStep<C, E extends DomainEvent, S>(
  deps: CommandDeps,
  context: RequestContext,
  step: CommandStep<C, E, S>,
  readAfter?: ReadAfterAppend,
): Promise<CommandOutcome<E, S>> {
  const replayed = await replayedStep(deps, context, step);
  if (replayed) return replayed;
  const executing = executeCommand(deps.eventStore, step.decider, step.stream, step.command, commandContext(context), commandMetadata(context), { newStream: step.newStream === true, readAfter });
  return step.onError ? executing.catch(step.onError) : executing;
}

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
  const inAppend = 'read' in answer ? answer.readAfterAppend : undefined;
  const outcome = await executeStep(deps, context, step, inAppend?.statement);
  const types = [...(step.after ?? []), ...outcome.events].map((e) => e.type);
  await awaitReadModels(deps, outcome.position, types);
  if (!('read' in answer)) return { status: answer.status, position: outcome.position };
  // Read in the append's transaction, it saw every inline read model: enough when all of them are.
  const readInAppend = outcome.readAfter && projectionsHandling(types).every((name) => deps.waiter.isInline(name)) ? outcome.readAfter : undefined;
  const row = inAppend && readInAppend ? inAppend.fromRows(readInAppend) : await answer.read();
  if (row === undefined) throw httpErrors.notFound(answer.notFound);
  const presented = answer.present(row);
  const body = answer.raw ? { rawJson: presented as string } : { body: presented };
  return { status: answer.status, ...body, position: outcome.position, ...(answer.headers ? { headers: answer.headers } : {}) };
}

/**
 * A retry under an Idempotency-Key whose earlier attempt already stored this step's events
 * (docs/idempotency.md): those events are the outcome, nothing is decided or appended again.
 */
async function replayedStep<C, E extends DomainEvent, S>(deps: CommandDeps, context: RequestContext, step: CommandStep<C, E, S>): Promise<CommandOutcome<E, S> | null> {
  const committed = context.idempotency?.committed.get(step.stream);
  if (!committed) return null;
  const stream = await deps.eventStore.readStream(step.stream);
  const state = stream.events.reduce((s, e) => step.decider.evolve(s, { type: e.type, data: e.data } as E), step.decider.initialState);
  return { events: committed.events as E[], state, position: committed.position };
}
