import type { DomainEvent } from '@cairn/domain';
import { decideOnSnapshot as decide, type DecidedBatch, type GlobalPosition, type RequestContext } from '@cairn/platform';
import { commandContext, commandMetadata, type CommandDeps } from '../deps.ts';

/** platform's decideOnSnapshot, for a request. */
export function decideOnSnapshot(deps: CommandDeps, context: RequestContext, decideBatches: () => Promise<readonly DecidedBatch[]>): Promise<{ position: GlobalPosition | null; events: DomainEvent[] }> {
  return decide(deps.eventStore, commandContext(context), commandMetadata(context), decideBatches);
}
