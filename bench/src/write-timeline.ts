import type { TracedStatement } from './sql-trace.ts';
import { classify, type StatementClass } from './statement-classes.ts';

/** One create as the HTTP client saw it; `id` is the agency id its response carried. */
export type WriteRecord = { readonly id: string; readonly sent: number; readonly answered: number };

type Classified = TracedStatement & { readonly cls: StatementClass; tx: Transaction | null };
type Transaction = { readonly statements: Classified[]; kind: 'append' | 'projector' | 'other'; begin: number; end: number };

const uuidPattern = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Every uuid a statement's parameters mention (strings, arrays, JSON text). */
function uuidsIn(values: readonly unknown[]): string[] {
  const found: string[] = [];
  const visit = (v: unknown) => {
    if (typeof v === 'string') found.push(...(v.match(uuidPattern) ?? []).map((u) => u.toLowerCase()));
    else if (Array.isArray(v)) v.forEach(visit);
  };
  values.forEach(visit);
  return found;
}

const opensTransaction = (c: StatementClass) => c.name === 'begin' || c.name === 'begin + advisory lock';
const closesTransaction = (c: StatementClass) => c.name === 'commit' || c.name === 'rollback';

/** Groups each connection's statements into transactions (begin … commit/rollback) and names their kind. */
function classifyAll(statements: readonly TracedStatement[]): Classified[] {
  const all: Classified[] = [...statements].sort((a, b) => a.start - b.start).map((s) => ({ ...s, cls: classify(s.text, s.values), tx: null }));
  const open = new Map<number, Transaction>();
  for (const s of all) {
    if (opensTransaction(s.cls)) open.set(s.connection, { statements: [], kind: 'other', begin: s.start, end: s.end });
    const tx = open.get(s.connection);
    if (!tx) continue;
    s.tx = tx;
    tx.statements.push(s);
    tx.end = s.end;
    if (closesTransaction(s.cls)) open.delete(s.connection);
  }
  for (const s of all) {
    const tx = s.tx;
    if (!tx || tx.kind !== 'other') continue;
    if (tx.statements.some((t) => t.cls.part === 'append')) tx.kind = 'append';
    else if (tx.statements.some((t) => t.cls.name === 'checkpoint lock' || t.cls.name === 'checkpoint move')) tx.kind = 'projector';
  }
  return all;
}

const firstBy = <K, V>(map: Map<K, V>, key: K, value: V) => {
  if (!map.has(key)) map.set(key, value);
};

/** Time of each statement class within a transaction, summed (a class may run more than once). */
function byClass(tx: Transaction): Map<string, number> {
  const sums = new Map<string, number>();
  for (const s of tx.statements) sums.set(s.cls.name, (sums.get(s.cls.name) ?? 0) + (s.end - s.start));
  return sums;
}

export type WriteStages = Map<string, number>;

/** The stages in the order of a write; `  part: class` lines follow their transaction. */
export const stageOrder = [
  'client → stream read',
  'stream read',
  'stream read → append',
  'append transaction',
  'append commit → log read (wake-up)',
  'log read',
  'log read → batch begin',
  'projector batch transaction',
  'commit sent → waiter query start',
  'waiter query',
  'waiter → read back',
  'commit → read back (no waiter query)',
  'read back',
  'read back → client',
  'HTTP client latency',
] as const;

/** Sorts stage names by `stageOrder`, each transaction's per-class lines right after it. */
export function orderStages(names: readonly string[]): string[] {
  const parentOf = (name: string) => (name.startsWith('  append:') ? 'append transaction' : name.startsWith('  batch:') ? 'projector batch transaction' : name);
  const rank = (name: string) => (stageOrder as readonly string[]).indexOf(parentOf(name)) * 2 + (name.startsWith('  ') ? 1 : 0);
  return names.map((name, i) => ({ name, i })).sort((a, b) => rank(a.name) - rank(b.name) || a.i - b.i).map((x) => x.name);
}

/**
 * Lays each write's statements on its timeline, found by what they carry (the agency id in
 * the stream name, the event rows, the read-model parameters), not by timing, so that 16
 * interleaved writes come apart. A stage a write did not go through is absent.
 */
export function writeTimelines(statements: readonly TracedStatement[], writes: readonly WriteRecord[]): { stages: WriteStages[]; all: Classified[] } {
  const all = classifyAll(statements);
  const streamReads = new Map<string, Classified>();
  const appends = new Map<string, Transaction>();
  const batches = new Map<string, Transaction>();
  const logReads = new Map<string, Classified[]>();
  const readBacks = new Map<string, Classified>();
  // Ids whose read model was written inside their append transaction: no projector stage to wait for.
  const inline = new Set<string>();
  const waiters = all.filter((s) => s.cls.name === 'waiter');
  for (const s of all) {
    const name = s.cls.name;
    if (name === 'stream read') for (const u of uuidsIn(s.values)) firstBy(streamReads, u, s);
    else if (name === 'insert events' && s.tx) for (const u of uuidsIn(s.values)) firstBy(appends, u, s.tx);
    else if (name === 'read-model write' && s.tx?.kind === 'projector') for (const u of uuidsIn(s.values)) firstBy(batches, u, s.tx);
    else if (name === 'read-model write' && s.tx?.kind === 'append') for (const u of uuidsIn(s.values)) inline.add(u);
    else if (name === 'read back') for (const u of uuidsIn(s.values)) firstBy(readBacks, u, s);
    else if (name === 'log read') {
      for (const row of s.rows ?? []) {
        for (const u of uuidsIn([row['stream_id']])) logReads.set(u, [...(logReads.get(u) ?? []), s]);
      }
    }
  }

  const stages = writes.map((w) => {
    const out: WriteStages = new Map();
    const put = (stage: string, ms: number | undefined) => {
      if (ms !== undefined && Number.isFinite(ms)) out.set(stage, ms);
    };
    const read = streamReads.get(w.id);
    const append = appends.get(w.id);
    const batch = inline.has(w.id) ? undefined : batches.get(w.id);
    // The log read that fed the batch: the latest one returning this event before the batch began.
    const log = batch ? (logReads.get(w.id) ?? []).filter((s) => s.end <= batch.begin).at(-1) : undefined;
    const visible = batch?.end ?? append?.end;
    // A waiter query sent before the commit was sent cannot see it; one sent after may, even
    // if its notification overtook the commit's reply to the projector.
    const commitSent = (batch ?? append)?.statements.at(-1)?.start;
    const back = readBacks.get(w.id);
    const waiter = commitSent === undefined ? undefined : waiters.find((s) => s.start >= commitSent && (!back || s.end <= back.start));
    put('client → stream read', read && read.start - w.sent);
    put('stream read', read && read.end - read.start);
    put('stream read → append', read && append && append.begin - read.end);
    put('append transaction', append && append.end - append.begin);
    for (const [cls, ms] of append ? byClass(append) : []) put(`  append: ${cls}`, ms);
    put('append commit → log read (wake-up)', append && log && log.start - append.end);
    put('log read', log && log.end - log.start);
    put('log read → batch begin', log && batch && batch.begin - log.end);
    put('projector batch transaction', batch && batch.end - batch.begin);
    for (const [cls, ms] of batch ? byClass(batch) : []) put(`  batch: ${cls}`, ms);
    // From the commit's sending: its reply may reach the projector after the notification reaches the waiter.
    put('commit sent → waiter query start', waiter && commitSent !== undefined ? waiter.start - commitSent : undefined);
    put('waiter query', waiter && waiter.end - waiter.start);
    if (waiter) put('waiter → read back', back && back.start - waiter.end);
    else put('commit → read back (no waiter query)', back && visible !== undefined ? back.start - visible : undefined);
    put('read back', back && back.end - back.start);
    put('read back → client', back && w.answered - back.end);
    put('HTTP client latency', w.answered - w.sent);
    return out;
  });
  return { stages, all };
}
