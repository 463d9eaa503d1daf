import { sql, type RawBuilder } from 'kysely';
import { principalList, type ViewerFacts } from './asset-json.ts';

/**
 * A caller's listing facts kept from an earlier request (query-api keeps them a few seconds)
 * are checked by every statement that uses them, in its own snapshot: the statement works
 * the principals and the restriction flag out again and, when they differ from those it
 * was given, adds a row saying so (`staleFactsPhase`), and its page is thrown away
 * (runPage). A page is then never built from principals its snapshot no longer gives the
 * caller, while a request whose facts hold (all of them but the first after a membership
 * or restriction change) sends one statement fewer: reading the facts first was a third
 * of an unfiltered page's cost (docs/benchmarks.md, tenth sitting). The stars counted are
 * not checked: they only choose how a filtered page reads the caller's stars, never what it
 * finds.
 */
export type KeptFacts = ViewerFacts & { readonly restricted: boolean; readonly keptFor: string };

/** The phase of a page statement's row that says the kept facts no longer hold, with the current ones. */
export const staleFactsPhase = 4;

/** Thrown by a page read whose kept facts no longer hold; `current` are the facts its statement found. */
export class StaleViewerFacts extends Error {
  readonly current: { readonly p: string[]; readonly restricted: boolean };
  constructor(current: { readonly p: string[]; readonly restricted: boolean }) {
    super("the caller's kept facts no longer hold");
    this.current = current;
  }
}

export const isKept = (facts: ViewerFacts): facts is KeptFacts => 'keptFor' in facts && typeof facts.keptFor === 'string';

/** The CTE a statement checking kept facts adds after `me`: the caller's current facts, worked out once. */
export function keptFactsCte(facts: ViewerFacts): RawBuilder<unknown> {
  if (!isKept(facts)) return sql``;
  return sql`, fresh as materialized (select cairn_principals(${facts.keptFor}::uuid) as p, exists (select 1 from projects where geobound_enabled) as restricted)`;
}

/**
 * The statement's row when the kept facts no longer hold (a set of principals, compared
 * as a set): in a page statement's columns, the current principals in `readers`
 * (comma-separated), the restriction flag in `hit`. Empty when the facts were read for
 * this request.
 */
export function keptFactsRow(facts: ViewerFacts): RawBuilder<unknown> {
  if (!isKept(facts)) return sql``;
  const p = [...facts.p];
  return sql` union all select ${staleFactsPhase} as phase, null as created_at, null as id, f.restricted as hit,
      null as doc, null as own, null as entries, array_to_string(f.p, ',') as readers, null as held_in
    from fresh f where not (f.p @> ${p}::text[] and ${p}::text[] @> f.p and f.restricted = ${facts.restricted}::boolean)`;
}

/** The error for a statement's stale-facts row. */
export const staleFactsOf = (row: { readonly readers: string | null; readonly hit: boolean }) => new StaleViewerFacts({ p: principalList(row.readers), restricted: row.hit });
