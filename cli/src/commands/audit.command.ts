import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { Command } from '@commander-js/extra-typings';
import type { AuditEntry, ChainLine, RecordedEvent } from '@cairn/platform';
import { collect, defineCommand, examples, nonEmpty } from '../program/define-command.ts';
import type { Resources } from '../runtime/resources.ts';
import { UsageError } from './args.ts';
import { PrintedOutput } from './printed-output.ts';
import { terminalProgress } from './progress.ts';
import { ReportedFailure } from './reported-failure.ts';

/** What these commands run on, loaded when one runs: `cairn --help` loads none of it. */
const load = async () => ({ ...(await import('@cairn/domain')), ...(await import('@cairn/platform')), ...(await import('./operator.ts')) });


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
export const auditLogCommand = defineCommand(
  () =>
    new Command('log')
      .summary("an entity's or a user's history: who changed what, when")
      .description(
        'The audit log of one entity (every stream named by its id) or of one actor (everything a user did): when, who, the event, the stream, the request and what changed. A table on a terminal; JSON lines otherwise, or with --json.',
      )
      .option('--entity <id>', 'the id of an asset, collection, project, user, organization, group, allocation, OAuth client, ...')
      .option('--actor <user>', 'the user who acted: an id or an e-mail address')
      .option('--from <time>', 'only events at or after this ISO 8601 time (default: the start)')
      .option('--to <time>', 'only events at or before this ISO 8601 time (default: now)')
      .option('--type <types>', 'only these event types (comma-separated; repeatable)', collect, [])
      .option('--limit <n>', 'at most this many events', '10000')
      .option('--json', 'JSON lines even on a terminal', false)
      .addHelpText('after', examples('cairn audit log --entity 0190e0c4-5b7a-7cc2-9a51-3f1f0f3e9b10', 'cairn audit log --actor ada@example.org --from 2026-01-01 --type AssetLocked,AssetUpdated --json')),
  async (resources: Resources, { options: values }) => {
    const { actorHistory, auditEntryJson, entityHistory, isUuid, resolveUserId } = await load();
    const filter = {
      from: timeOption(values.from, 'from'),
      to: timeOption(values.to, 'to'),
      types: values.type.flatMap((t) => t.split(',')).map((t) => t.trim()).filter(Boolean),
      limit: Number(values.limit),
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
  },
);

/** `cairn audit as-of --entity ID --at TIME`: the entity's state then, folded by the domain's own code. */
export const auditAsOfCommand = defineCommand(
  () =>
    new Command('as-of')
      .summary("an entity's state at a past time")
      .description("The state of one entity at a time, folded from its events by the domain's own code. Prints {\"entity_id\", \"at\", \"kind\", \"stream_id\", \"version\", \"state\"}.")
      .requiredOption('--entity <id>', 'the entity id (required)', nonEmpty)
      .requiredOption('--at <time>', 'an ISO 8601 time (required)', nonEmpty)
      .addHelpText('after', examples('cairn audit as-of --entity 0190e0c4-5b7a-7cc2-9a51-3f1f0f3e9b10 --at 2026-03-01T12:00:00Z')),
  async (resources: Resources, { options: values }) => {
    const { entityStateAt, isUuid } = await load();
    const entityId = values.entity;
    if (!isUuid(entityId)) throw new UsageError('--entity must be an id');
    const at = timeOption(values.at, 'at') ?? new Date();
    const found = await entityStateAt(resources.eventStore, entityId, at);
    if (!found) throw new UsageError(`no events of ${entityId} at or before ${at.toISOString()}`);
    return { entity_id: entityId.toLowerCase(), at: at.toISOString(), kind: found.kind, stream_id: found.streamId, version: found.version, state: found.state };
  },
);

/** How long an export waits for the log to show the events committed before it began. */
const headWaitMs = 30_000;

/** How many events an export will write (PostgreSQL; null on EventStoreDB, where it is not counted). */
async function eventsToExport(resources: Resources, from: Date | undefined, to: Date | undefined): Promise<number | null> {
  if (resources.eventStore.kind !== 'postgres') return null;
  const { rows } = await resources.pool.query<{ count: string }>(
    'select count(*)::text as count from events where ($1::timestamptz is null or recorded_at >= $1) and ($2::timestamptz is null or recorded_at <= $2)',
    [from ?? null, to ?? null],
  );
  return Number(rows[0]?.count ?? 0);
}

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

/**
 * `cairn audit export [--from T] [--to T] [--out FILE]`: the log as JSON lines, each with the
 * digest of its event and of the line before (a hash chain). To stdout, or to FILE with a
 * one-object summary on stdout.
 */
export const auditExportCommand = defineCommand(
  () =>
    new Command('export')
      .summary('the whole log as hash-chained JSON lines')
      .description(
        'Exports the event log as JSON lines, each with the digest of its event and of the line before (a hash chain that cairn audit verify checks). To stdout, or to a new FILE with {"file", "events", "last_digest"} on stdout.',
      )
      .option('--from <time>', 'only events at or after this ISO 8601 time (default: the start)')
      .option('--to <time>', 'only events at or before this ISO 8601 time (default: now)')
      .option('--out <file>', 'write to this new file (refused if it exists; default: stdout)')
      .addHelpText('after', examples('cairn audit export --out audit-2026.jsonl', 'cairn audit export --from 2026-01-01 | gzip > audit.jsonl.gz')),
  async (resources: Resources, { options: values }) => {
    const { chainLine, chainStart, comparePositions, exportedEvent, startOfLog } = await load();
    const from = timeOption(values.from, 'from');
    const to = timeOption(values.to, 'to');
    const file = values.out !== undefined ? createWriteStream(values.out, { flags: 'wx' }) : null;
    const out: Writable = file ?? process.stdout;
    let previous = chainStart;
    let count = 0;
    let after = startOfLog;
    // Counted only for a terminal (and not when the lines themselves go to it): off one, nothing is shown and the count is not paid for.
    const progress = process.stderr.isTTY && (file || !process.stdout.isTTY) ? terminalProgress('audit export', await eventsToExport(resources, from, to), 'events') : null;
    // Every event committed before the export began: the log shows an event only once every
    // transaction older than it has ended (anywhere on the server), so a scan may stop short
    // of the head for a moment; the export reads on until it passes it.
    const head = await resources.eventStore.headPosition();
    const deadline = Date.now() + headWaitMs;
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
      progress?.update(count);
      after = page.through;
      if (page.full) continue;
      if (comparePositions(after, head) >= 0) break;
      if (Date.now() > deadline) throw new Error(`a transaction open for over ${headWaitMs / 1000} s hides events committed before the export began; end it and export again`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    progress?.end();
    if (!file) return new PrintedOutput('');
    file.end();
    await once(file, 'close');
    return { file: values.out, events: count, last_digest: previous };
  },
);

/**
 * `cairn audit verify FILE`: checks the chain line by line and each line's event against the
 * store; names the first line that differs (exit 1).
 */
export const auditVerifyCommand = defineCommand(
  () =>
    new Command('verify')
      .summary('check an exported log against the chain and the store')
      .description('Checks an exported file: the hash chain line by line, and each line\'s event against the store. Prints {"ok": true, "lines", "last_digest"}; on the first line that differs, {"ok": false, "line", "reason"} and exit 1.')
      .argument('<file>', 'the file written by cairn audit export')
      .addHelpText('after', examples('cairn audit verify audit-2026.jsonl')),
  async (resources: Resources, { args: [path] }) => {
    const { canonicalJson, chainStart, exportedEvent, lineProblem } = await load();
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
  },
);

export const auditLog = auditLogCommand.inProcess;
export const auditAsOf = auditAsOfCommand.inProcess;
export const auditExport = auditExportCommand.inProcess;
export const auditVerify = auditVerifyCommand.inProcess;
