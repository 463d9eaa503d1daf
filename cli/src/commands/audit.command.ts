import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { isUuid } from '@cairn/domain';
import {
  actorHistory,
  auditEntryJson,
  canonicalJson,
  chainLine,
  chainStart,
  entityHistory,
  entityStateAt,
  exportedEvent,
  lineProblem,
  startOfLog,
  type AuditEntry,
  type ChainLine,
  type RecordedEvent,
} from '@cairn/platform';
import type { Resources } from '../runtime/resources.ts';
import { parseOptions, requireOption, UsageError } from './args.ts';
import { resolveUserId } from './operator.ts';
import { PrintedOutput } from './printed-output.ts';
import { ReportedFailure } from './reported-failure.ts';

function timeOption(value: string | boolean | undefined, name: string): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new UsageError(`--${name} must be an ISO 8601 time`);
  return at;
}

const short = (value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? 'null';
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
};

function table(entries: readonly AuditEntry[]): string {
  const rows = entries.map((e) => [
    e.event.recordedAt,
    e.event.metadata.actorId ?? 'operator',
    e.event.type,
    e.event.streamId,
    e.event.metadata.requestId ?? '',
    Object.entries(e.changes)
      .map(([field, c]) => `${field}: ${short(c.before)} -> ${short(c.after)}`)
      .join('; '),
  ]);
  const header = ['when', 'who', 'event', 'stream', 'request', 'what changed'];
  const widths = header.map((h, i) => Math.min(48, Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length))));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ');
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

/**
 * `cairn audit log --entity ID | --actor USER [--from T] [--to T] [--type T ...] [--limit N] [--json]`:
 * a table on a terminal, JSON lines otherwise (or with --json).
 */
export async function auditLog(resources: Resources, args: readonly string[]) {
  const { values } = parseOptions(args, {
    entity: { type: 'string' },
    actor: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    type: { type: 'string', multiple: true },
    limit: { type: 'string' },
    json: { type: 'boolean' },
  });
  const filter = {
    from: timeOption(values.from, 'from'),
    to: timeOption(values.to, 'to'),
    types: (values.type ?? []).flatMap((t) => t.split(',')).map((t) => t.trim()).filter(Boolean),
    limit: values.limit === undefined ? 10_000 : Number(values.limit),
  };
  if (!Number.isInteger(filter.limit) || filter.limit < 1) throw new UsageError('--limit must be a positive whole number');
  let entries: AuditEntry[];
  if (typeof values.entity === 'string') {
    if (!isUuid(values.entity)) throw new UsageError('--entity must be an id');
    entries = await entityHistory(resources.eventStore, values.entity, filter);
  } else if (typeof values.actor === 'string') {
    const actorId = await resolveUserId(resources, values.actor);
    entries = await actorHistory(resources.eventStore, resources.pool, actorId, filter);
  } else throw new UsageError('name --entity ID or --actor USER');
  if (process.stdout.isTTY && !values.json) return new PrintedOutput(table(entries));
  return new PrintedOutput(entries.map((e) => `${JSON.stringify(auditEntryJson(e))}\n`).join(''));
}

/** `cairn audit as-of --entity ID --at TIME`: the entity's state then, folded by the domain's own code. */
export async function auditAsOf(resources: Resources, args: readonly string[]) {
  const { values } = parseOptions(args, { entity: { type: 'string' }, at: { type: 'string' } });
  const entityId = requireOption(values.entity, 'entity');
  if (!isUuid(entityId)) throw new UsageError('--entity must be an id');
  const at = timeOption(requireOption(values.at, 'at'), 'at') ?? new Date();
  const found = await entityStateAt(resources.eventStore, entityId, at);
  if (!found) throw new UsageError(`no events of ${entityId} at or before ${at.toISOString()}`);
  return { entity_id: entityId.toLowerCase(), at: at.toISOString(), kind: found.kind, stream_id: found.streamId, version: found.version, state: found.state };
}

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

/**
 * `cairn audit export [--from T] [--to T] [--out FILE]`: the log as JSON lines, each with the
 * digest of its event and of the line before (a hash chain). To stdout, or to FILE with a
 * one-object summary on stdout.
 */
export async function auditExport(resources: Resources, args: readonly string[]) {
  const { values } = parseOptions(args, { from: { type: 'string' }, to: { type: 'string' }, out: { type: 'string' } });
  const from = timeOption(values.from, 'from');
  const to = timeOption(values.to, 'to');
  const file = typeof values.out === 'string' ? createWriteStream(values.out, { flags: 'wx' }) : null;
  const out: Writable = file ?? process.stdout;
  let previous = chainStart;
  let count = 0;
  let after = startOfLog;
  for (;;) {
    const page = await resources.eventStore.readLog(after, 2000);
    for (const event of page.events) {
      const at = Date.parse(event.recordedAt);
      if ((from && at < from.getTime()) || (to && at > to.getTime())) continue;
      const line = chainLine(exportedEvent(event), previous);
      previous = line.digest;
      count += 1;
      await write(out, `${JSON.stringify(line)}\n`);
    }
    after = page.through;
    if (!page.full) break;
  }
  if (!file) return new PrintedOutput('');
  file.end();
  await once(file, 'close');
  return { file: values.out, events: count, last_digest: previous };
}

/**
 * `cairn audit verify FILE`: checks the chain line by line and each line's event against the
 * store; names the first line that differs (exit 1).
 */
export async function auditVerify(resources: Resources, args: readonly string[]) {
  const { positionals } = parseOptions(args, {});
  const path = positionals[0];
  if (!path) throw new UsageError('name the exported file: cairn audit verify FILE');
  const streams = new Map<string, readonly RecordedEvent[]>();
  const stored = async (line: ChainLine) => {
    let events = streams.get(line.stream_id);
    if (!events) {
      events = (await resources.eventStore.readStream(line.stream_id)).events;
      streams.set(line.stream_id, events);
    }
    return events.find((e) => e.streamVersion === line.stream_version);
  };
  let previous = chainStart;
  let number = 0;
  const fail = (reason: string) => {
    throw new ReportedFailure({ ok: false, line: number, reason }, `line ${number}: ${reason}`);
  };
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const text of lines) {
    number += 1;
    let line: ChainLine;
    try {
      line = JSON.parse(text) as ChainLine;
    } catch {
      return fail('it is not JSON');
    }
    const problem = lineProblem(line, previous);
    if (problem) return fail(problem);
    const event = await stored(line);
    if (!event) return fail(`the store has no event ${line.stream_id}@${line.stream_version}`);
    const { event_digest: _d, previous: _p, digest: _g, ...exported } = line;
    if (canonicalJson(exportedEvent(event)) !== canonicalJson(exported)) return fail(`it differs from the stored event ${event.id}`);
    previous = line.digest;
  }
  return { ok: true, lines: number, last_digest: previous };
}
