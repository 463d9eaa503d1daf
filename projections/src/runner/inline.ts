import { projectionLockKey, type AdvisoryLock, type InlineProjections } from '@cairn/platform';
import { applyEvents, projectEvents } from './apply-events.ts';
import { planSteps, statementFor } from './row-op-plan.ts';
import type { Projection } from './projection.ts';
import { clientRunner } from './sql-runner.ts';

/**
 * The inline projections as the PostgreSQL event store runs them in each append's
 * transaction. Every append takes each projection's lock it touches, shared (a rebuild's
 * swap takes it alone, to hold writers off), or alone for a serialized projection.
 */
export function createInlineProjections(projections: readonly Projection[]): InlineProjections {
  // Worked out once: every append asks which projections its types touch, and their locks.
  const locks = new Map<Projection, AdvisoryLock>(projections.map((p) => [p, { key: projectionLockKey(p.name), shared: p.serialized !== true }]));
  const handlers = new Map<string, Projection[]>();
  for (const projection of projections) for (const type of projection.handles) handlers.set(type, [...(handlers.get(type) ?? []), projection]);
  const touched = (types: readonly string[]) => projections.filter((p) => types.some((t) => handlers.get(t)?.includes(p)));
  return {
    locksFor(types): AdvisoryLock[] {
      return touched(types).flatMap((p) => locks.get(p) ?? []);
    },
    plan(events) {
      const types = events.map((e) => e.type);
      const statements = [];
      for (const projection of touched(types)) {
        for (const step of planSteps(projectEvents(projection, events).ops)) {
          if (step.kind === 'custom') return null;
          const { text, rows } = statementFor(step.ops);
          if (text) statements.push({ text, rows: JSON.stringify(rows) });
        }
      }
      return statements;
    },
    async apply(client, events) {
      const types = events.map((e) => e.type);
      const runner = clientRunner(client);
      for (const projection of touched(types)) await applyEvents(runner, projection, events);
    },
  };
}

/** Which projections run inline and which async, on this deployment's event store. */
export function splitByLifecycle(projections: readonly Projection[], eventStoreKind: 'postgres' | 'eventstoredb', mode: 'inline' | 'async') {
  const inlineAllowed = eventStoreKind === 'postgres' && mode === 'inline';
  const inline = inlineAllowed ? projections.filter((p) => (p.lifecycle ?? 'inline') === 'inline') : [];
  return { inline, async: projections.filter((p) => !inline.includes(p)) };
}
