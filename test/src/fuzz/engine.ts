import type pg from 'pg';
import type { FuzzCase } from './cases.ts';
import type { Client, RawResponse } from './client.ts';
import { check, isOpenFinding, type Violation } from './invariants.ts';
import type { Operation } from './operations.ts';
import { build, describeRequest, type Features } from './wire.ts';
import { pairKind, paramKind, type World } from './world.ts';

/** FUZZ_TRACE: a regular expression of "operationId variant" whose requests and answers are printed. */
const trace = process.env['FUZZ_TRACE'] ? new RegExp(process.env['FUZZ_TRACE']) : undefined;

export type Outcome = {
  readonly op: Operation;
  readonly c: FuzzCase;
  readonly request: string;
  readonly status: number;
  readonly ms: number;
  readonly bytes: number;
  readonly features: Features;
  /** Violations of the rules, those of open findings apart. */
  readonly violations: readonly Violation[];
  readonly known: readonly { readonly label: string; readonly violation: Violation }[];
};

export type FuzzOptions = {
  /** No request may take longer (503s, which wait for read models by design, aside). */
  readonly boundMs: number;
  /** Every so many requests, undo the locks and restrictions that shut the callers out. */
  readonly maintainEvery?: number;
};

/**
 * Sends generated cases one at a time and checks each answer. The log's length is read
 * before and after every request; with nothing else in flight (the world's own writes
 * happen between requests) a difference is exactly what the request wrote.
 */
export class Fuzzer {
  private sent = 0;
  private readonly byId: ReadonlyMap<string, Operation>;

  private readonly client: Client;
  private readonly world: World;
  private readonly pool: pg.Pool;
  private readonly options: FuzzOptions;
  constructor(
    client: Client,
    world: World,
    pool: pg.Pool,
    operations: readonly Operation[],
    options: FuzzOptions,
  ) {
    this.client = client;
    this.world = world;
    this.pool = pool;
    this.options = options;
    this.byId = new Map(operations.map((op) => [op.operationId, op]));
  }

  /**
   * The events requests appended: background jobs (metadata extraction of an upload, a
   * migration) append theirs whenever they run, between any two requests, with no request id.
   */
  private async events(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>("select count(*)::int as n from events where metadata->>'requestId' is not null");
    return rows[0]?.n ?? 0;
  }

  /** The log's length after the last request, while nothing else has written since. */
  private known: number | undefined;

  /** Something else wrote to the log (a request outside the contract): read its length anew. */
  forgetLogLength(): void {
    this.known = undefined;
  }

  /**
   * A request its client abandoned may still be at work in the server (an upload whose body
   * had all arrived is recorded): wait until the log has not grown for `quietMs` (at most
   * `timeoutMs`), so that its events are not charged to the next request.
   */
  async awaitQuietLog(quietMs = 300, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = await this.events();
    let since = Date.now();
    while (Date.now() < deadline && Date.now() - since < quietMs) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const now = await this.events();
      if (now !== last) {
        last = now;
        since = Date.now();
      }
    }
    this.known = undefined;
  }

  async run(c: FuzzCase): Promise<Outcome> {
    const op = this.byId.get(c.operationId);
    if (!op) throw new Error(`unknown operation ${c.operationId}`);
    this.sent += 1;
    if (this.options.maintainEvery && this.sent % this.options.maintainEvery === 0) {
      await this.world.maintain();
      this.known = undefined;
    }

    const { request, features } = build(op, c, this.world);
    const eventsBefore = this.known ?? (await this.events());
    let res: RawResponse;
    try {
      res = await this.client.send(request);
    } catch (error) {
      res = { status: 0, headers: {}, body: Buffer.from(String(error)), ms: 0 };
    }
    const eventsAfter = await this.events();
    const all =
      res.status === 0
        ? [{ kind: features.headBytes > 16_384 ? 'header overflow' : 'no answer', message: res.body.toString() }]
        : check({ op, c, features, res, eventsBefore, eventsAfter, boundMs: this.options.boundMs });
    const violations: Violation[] = [];
    const known: { label: string; violation: Violation }[] = [];
    // What was written, to tell a request's own events from anything else's.
    if (eventsAfter > eventsBefore && all.some((v) => v.kind === 'refused request wrote' || v.kind === 'read wrote')) {
      const { rows } = await this.pool.query<{ type: string; stream_id: string; request_id: string | null; actor: string | null }>(
        "select type, stream_id, metadata->>'requestId' as request_id, metadata->>'actorId' as actor from events where metadata->>'requestId' is not null order by position desc limit $1",
        [eventsAfter - eventsBefore],
      );
      all.push({ kind: 'what was written', message: rows.map((r) => `${r.type} on ${r.stream_id} (request ${r.request_id ?? '-'}, actor ${r.actor ?? '-'})`).join('; ') });
    }
    for (const violation of all) {
      const label = isOpenFinding(violation, features, c);
      if (label) known.push({ label, violation });
      else violations.push(violation);
    }
    if (trace?.test(`${op.operationId} ${c.variant}`)) console.error(`${describeRequest(request, c.credential)}\n  → ${res.status} ${res.body.toString('utf8').slice(0, 400)}`);
    this.known = eventsAfter;
    // The world's own writes (replacing what a request deleted) change the log's length.
    if (await this.harvest(op, request.path, request.body, res)) this.known = undefined;
    return { op, c, request: describeRequest(request, c.credential), status: res.status, ms: res.ms, bytes: request.body?.length ?? 0, features, violations, known };
  }

  /** Ids, cursors and tokens of successful answers join the world; deleted ids leave it. */
  /** Returns whether the world wrote anything itself. */
  private async harvest(op: Operation, path: string, body: Buffer | undefined, res: RawResponse): Promise<boolean> {
    if (res.status < 200 || res.status >= 300) return false;
    const token = res.headers['x-consistency-token'];
    if (typeof token === 'string') this.world.add('consistencyToken', { id: token });
    const cursor = res.headers['x-next-cursor'];
    if (typeof cursor === 'string') this.world.add('cursor', { id: cursor });
    const segments = path.split('?')[0]?.split('/') ?? [];
    const ids = op.path
      .split('/')
      .map((part, i) => (part.startsWith('{') ? segments[i] : undefined))
      .filter((s): s is string => s !== undefined)
      .map((s) => decodeURIComponent(s).toLowerCase());
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
    } catch {
      // 204s have no body.
    }

    if (op.method === 'delete') {
      const id = ids.at(-1);
      const pair = pairKind(op.path);
      if (!id) return false;
      // The entity itself was deleted: replace it. A membership ended: forget the pair.
      if (op.path.endsWith('/{id}/')) return this.world.replace(paramKind(op.path, 'id'), id);
      if (pair === 'note' || pair === 'relationship') return this.world.replace(pair, id);
      if (pair) this.world.remove(pair, id);
      return false;
    }
    if (op.method === 'post' && res.status === 201) {
      const created = typeof json['id'] === 'string' ? json['id'] : undefined;
      const collection = op.path.split('/').at(-2) ?? '';
      const kinds: Record<string, Parameters<World['add']>[0]> = {
        organizations: 'organization',
        groups: 'group',
        projects: 'project',
        'country-sets': 'countrySet',
        'funding-agencies': 'fundingAgency',
        assets: 'asset',
        notes: 'note',
        relationships: 'relationship',
        collections: 'collection',
      };
      const kind = kinds[collection];
      if (created && kind && !op.path.startsWith('/api/admin/')) this.world.add(kind, { id: created, ...(ids[0] ? { parent: ids[0] } : {}) });
      if (typeof json['root_collection_id'] === 'string') this.world.add('collection', { id: json['root_collection_id'] });
      const sent = parseBody(body);
      if (collection === 'members' && typeof sent['user_id'] === 'string' && ids[0]) this.world.add(op.path.startsWith('/api/groups/') ? 'groupMember' : 'projectMember', { parent: ids[0], id: sent['user_id'].toLowerCase() });
      if (op.path.startsWith('/api/admin/users/') && typeof sent['organization_id'] === 'string' && ids[0]) this.world.add('orgMembership', { parent: ids[0], id: sent['organization_id'].toLowerCase() });
    }
    if (op.operationId === 'assets_lock_create' && ids[0]) this.world.noteLocked(ids[0], json['is_locked'] === true);
    if (op.operationId === 'projects_partial_update' && ids[0] && json['geobound_enabled'] === true) this.world.noteRestricted(ids[0]);
    return false;
  }
}

function parseBody(body: Buffer | undefined): Record<string, unknown> {
  if (!body) return {};
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown;
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Counts and extremes of a run, for the long run's report. */
export class Tally {
  readonly started = performance.now();
  requests = 0;
  readonly statuses = new Map<string, Map<number, number>>();
  readonly variants = new Map<string, Map<number, number>>();
  readonly failures: Outcome[] = [];
  readonly known = new Map<string, Outcome[]>();
  readonly slowest: Outcome[] = [];
  readonly latencies: number[] = [];

  record(o: Outcome): void {
    this.requests += 1;
    this.latencies.push(o.ms);
    const bump = (map: Map<string, Map<number, number>>, key: string) => {
      const counts = map.get(key) ?? new Map<number, number>();
      counts.set(o.status, (counts.get(o.status) ?? 0) + 1);
      map.set(key, counts);
    };
    bump(this.statuses, `${o.op.method.toUpperCase()} ${o.op.path}`);
    bump(this.variants, o.c.variant.replace(/ \((json|form|multipart)\)$/, ''));
    if (o.violations.length > 0) this.failures.push(o);
    for (const { label } of o.known) {
      const list = this.known.get(label) ?? [];
      list.push(o);
      this.known.set(label, list);
    }
    this.slowest.push(o);
    this.slowest.sort((a, b) => b.ms - a.ms);
    if (this.slowest.length > 15) this.slowest.pop();
  }

  report(seed: number): string {
    const lines: string[] = [];
    const seconds = (performance.now() - this.started) / 1000;
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const at = (q: number) => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(1);
    lines.push(`fuzz: ${this.requests} requests in ${seconds.toFixed(1)} s (${(this.requests / seconds).toFixed(0)}/s), seed ${seed}`);
    lines.push(`latency ms: p50 ${at(0.5)}, p99 ${at(0.99)}, p99.9 ${at(0.999)}, max ${(sorted.at(-1) ?? 0).toFixed(1)}`);
    const total = new Map<number, number>();
    for (const counts of this.statuses.values()) for (const [s, n] of counts) total.set(s, (total.get(s) ?? 0) + n);
    const fmt = (counts: Map<number, number>) => [...counts].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}:${n}`).join(' ');
    lines.push(`statuses: ${fmt(total)}`);
    lines.push('', 'per operation:');
    const width = Math.max(...[...this.statuses.keys()].map((k) => k.length));
    for (const [key, counts] of [...this.statuses].sort()) lines.push(`  ${key.padEnd(width)}  ${fmt(counts)}`);
    lines.push('', 'per generator:');
    const vwidth = Math.max(...[...this.variants.keys()].map((k) => k.length));
    for (const [key, counts] of [...this.variants].sort()) lines.push(`  ${key.padEnd(vwidth)}  ${fmt(counts)}`);
    lines.push('', `violations: ${this.failures.length}`);
    for (const o of this.failures) lines.push(describeOutcome(o));
    for (const [label, list] of this.known) {
      lines.push('', `open finding, ${list.length} times: ${label}; first:`);
      const first = list[0];
      if (first) lines.push(describeOutcome(first, first.known.map((k) => k.violation)));
    }
    lines.push('', 'slowest:');
    for (const o of this.slowest) lines.push(`  ${o.ms.toFixed(0).padStart(6)} ms  ${o.status}  ${o.op.operationId}  ${o.c.variant}  (${o.bytes} bytes sent)`);
    return lines.join('\n');
  }
}

export function describeOutcome(o: Outcome, violations: readonly Violation[] = o.violations): string {
  return [`- ${o.op.operationId} [${o.c.variant}, ${o.c.credential}] → ${o.status} in ${o.ms.toFixed(0)} ms`, ...violations.map((v) => `  ${v.kind}: ${v.message}`), `  ${o.request.replaceAll('\n', '\n  ')}`].join('\n');
}
