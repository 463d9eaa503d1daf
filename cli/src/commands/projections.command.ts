import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples } from '../program/define-command.ts';
import type { Resources } from '../runtime/resources.ts';
import { UsageError } from './args.ts';
import { ReportedFailure } from './reported-failure.ts';
import { rebuildProgress } from './rebuild-progress.ts';
import { statusLine, terminalProgress } from './progress.ts';

/** What these commands run on, loaded when one runs: `cairn --help` loads none of it. */
const load = async () => ({ ...(await import('@cairn/projections')) });


async function selected(names: readonly string[]) {
  const { findProjection, projections } = await load();
  if (names.length === 0) return [...projections];
  return names.map((name) => {
    const projection = findProjection(name);
    if (!projection) throw new UsageError(`unknown projection ${name}; known: ${projections.map((p) => p.name).join(', ')}`);
    return projection;
  });
}

/**
 * `cairn projections rebuild [NAME ...]`: replay the whole log into fresh copies of the read
 * models and swap them in (blue-green: the live ones serve reads until the swap).
 */
export async function projectionsRebuild(resources: Resources, names: readonly string[], options: { signal?: AbortSignal; progress?: boolean } = {}) {
  const { rebuildBlueGreen } = await load();
  const rebuilt: string[] = [];
  for (const projection of (await selected(names))) {
    const total = options.progress ? await eventsToReplay(resources, projection.handles) : null;
    const progress = options.progress ? rebuildProgress(projection.name, total) : null;
    try {
      await rebuildBlueGreen({ ...resources, inline: resources.projections.inline.includes(projection), onProgress: (done) => progress?.update(done), ...(options.signal ? { signal: options.signal } : {}) }, projection);
    } finally {
      progress?.end();
    }
    rebuilt.push(projection.name);
  }
  return { rebuilt };
}

/**
 * The command line's rebuild: progress on stderr, and Ctrl-C (or SIGTERM) stops after the
 * current batch, keeping what was replayed for the next rebuild to resume (exit 1).
 */
export async function projectionsRebuildCommand(resources: Resources, names: readonly string[]) {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await projectionsRebuild(resources, names, { signal: controller.signal, progress: true });
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/** How many events a rebuild will replay (PostgreSQL; null on EventStoreDB, where it is not counted). */
async function eventsToReplay(resources: Resources, types: readonly string[]): Promise<number | null> {
  if (resources.eventStore.kind !== 'postgres') return null;
  const { rows } = await resources.pool.query<{ count: string }>('select count(*)::text as count from events where type = any($1::text[])', [[...types]]);
  return Number(rows[0]?.count ?? 0);
}

/**
 * `cairn projections verify [NAME ...]`: replays each read model into scratch tables and
 * compares them with the live ones row by row; prints every projection's differences and
 * exits non-zero when there is one. The job outbox is the queue's own state (its runner
 * changes and deletes rows), so it is left out unless named.
 */
export async function projectionsVerify(resources: Resources, names: readonly string[], options: { progress?: boolean } = {}) {
  const { verifyProjection } = await load();
  const chosen = names.length === 0 ? (await selected(names)).filter((p) => p.verifiable !== false) : (await selected(names));
  const verified = [];
  // On a terminal: the replay's events as they go, then one line per table compared.
  const shown = options.progress === true && process.stderr.isTTY;
  const lines = statusLine();
  for (const projection of chosen) {
    const replay = shown ? terminalProgress(`verify ${projection.name}: replay`, await eventsToReplay(resources, projection.handles), 'events') : null;
    const outcome = await verifyProjection(
      {
        ...resources,
        inline: resources.projections.inline.includes(projection),
        ...(replay
          ? {
              onProgress: (done: number) => replay.update(done),
              onCompared: (table: string, rows: number) => {
                replay.end();
                lines.print(`verify ${projection.name}: ${table}, ${rows.toLocaleString('en')} row${rows === 1 ? '' : 's'} checked`);
              },
            }
          : {}),
      },
      projection,
    );
    replay?.end();
    verified.push(outcome);
  }
  const differing = verified.filter((v) => v.differences > 0);
  const result = { verified };
  if (differing.length > 0) throw new ReportedFailure(result, `${differing.map((v) => `${v.projection}: ${v.differences} rows differ`).join('; ')}`);
  return result;
}

/** `cairn projections status`: where each projection is and whether it stopped. */
export async function projectionsStatus(resources: Resources) {
  const rows = await resources.db.selectFrom('projection_checkpoints').selectAll().orderBy('name').execute();
  return {
    projections: rows.map((r) => ({ name: r.name, lifecycle: r.status === 'inline' ? 'inline' : 'async', version: r.version, status: r.status, error: r.error, failed_event_id: r.failed_event_id, events_applied: Number(r.events_applied), updated_at: r.updated_at })),
  };
}

/** `cairn projections resume NAME ...`: after a fix, let a stopped projection go on from where it stopped. */
export async function projectionsResume(resources: Resources, names: readonly string[]) {
  const { catchUp } = await load();
  if (names.length === 0) throw new UsageError('name the projections to resume');
  const resumed: string[] = [];
  for (const projection of (await selected(names))) {
    await resources.db.updateTable('projection_checkpoints').set({ status: 'running', error: null, failed_event_id: null, updated_at: new Date() }).where('name', '=', projection.name).execute();
    await catchUp(resources, projection);
    resumed.push(projection.name);
  }
  return { resumed };
}

/**
 * `cairn projections list`: every projection with its checkpoint, its lag (events of its
 * types not applied yet, and how old the oldest of them is), its state and its last error.
 * Inline projections have no lag: they are applied in each append's transaction.
 */
export async function projectionsList(resources: Resources) {
  const { projections } = await load();
  const rows = await resources.db.selectFrom('projection_checkpoints').selectAll().execute();
  const byName = new Map(rows.map((r) => [r.name, r]));
  const postgres = resources.eventStore.kind === 'postgres';
  const listed = [];
  for (const projection of projections) {
    const row = byName.get(projection.name);
    const inline = row?.status === 'inline';
    let lag: { events: number; seconds: number } | null = inline ? { events: 0, seconds: 0 } : null;
    if (!inline && postgres) {
      const { rows: counted } = await resources.pool.query<{ events: string; oldest: Date | null }>(
        `select count(*)::text as events, min(recorded_at) as oldest from events
         where (transaction_id, position) > ($1::text::xid8, $2::bigint) and type = any($3::text[])`,
        [row?.major ?? '0', row?.minor ?? '0', [...projection.handles]],
      );
      const oldest = counted[0]?.oldest ?? null;
      lag = { events: Number(counted[0]?.events ?? 0), seconds: oldest ? Math.max(0, Math.round((Date.now() - oldest.getTime()) / 1000)) : 0 };
    }
    listed.push({
      name: projection.name,
      version: projection.version,
      lifecycle: inline ? 'inline' : 'async',
      state: row?.status ?? 'not started',
      checkpoint: row ? `${BigInt(row.major).toString(36)}.${BigInt(row.minor).toString(36)}` : null,
      lag_events: lag?.events ?? null,
      lag_seconds: lag?.seconds ?? null,
      events_applied: row ? Number(row.events_applied) : 0,
      last_error: row?.error ?? null,
      failed_event_id: row?.failed_event_id ?? null,
      updated_at: row?.updated_at ?? null,
    });
  }
  return { projections: listed };
}

const known = () => 'cairn projections list names them';

export const projectionsListCommand = defineCommand(
  () =>
    new Command('list')
      .summary('list projections with checkpoint, lag, state and last error')
      .description(`Every read model's projection: lifecycle (inline or async), checkpoint, lag (events not applied yet and the age of the oldest), state and last error. Prints {"projections": [...]}.`)
      .addHelpText('after', examples('cairn projections list')),
  async (resources: Resources) => projectionsList(resources),
);

export const projectionsStatusCommand = defineCommand(
  () =>
    new Command('status')
      .summary('where each projection is and whether it stopped')
      .description('Each projection\'s checkpoint row: status, version, events applied, error. Prints {"projections": [...]}.')
      .addHelpText('after', examples('cairn projections status')),
  async (resources: Resources) => projectionsStatus(resources),
);

export const projectionsRebuildDefinition = defineCommand(
  () =>
    new Command('rebuild')
      .summary('replay the log into fresh read models and swap them in')
      .description(
        `Replays the whole event log into fresh copies of the read models and swaps them in (blue-green: the live ones serve reads until the swap). Shows progress on stderr; Ctrl-C stops after the current batch and the next rebuild resumes. Prints {"rebuilt": [...]}. ${known()}.`,
      )
      .argument('[names...]', 'the projections to rebuild (default: all)')
      .addHelpText('after', examples('cairn projections rebuild', 'cairn projections rebuild assets collections')),
  async (resources: Resources, { args: [names] }) => projectionsRebuildCommand(resources, names),
);

export const projectionsResumeCommand = defineCommand(
  () =>
    new Command('resume')
      .summary('let stopped projections go on from where they stopped')
      .description(`After a fix, lets a stopped projection go on from where it stopped, and catches it up. Prints {"resumed": [...]}. ${known()}.`)
      .argument('<names...>', 'the projections to resume')
      .addHelpText('after', examples('cairn projections resume assets')),
  async (resources: Resources, { args: [names] }) => projectionsResume(resources, names),
);

export const projectionsVerifyCommand = defineCommand(
  () =>
    new Command('verify')
      .summary('replay into scratch tables and compare with the live read models')
      .description(`Replays each read model into scratch tables and compares them with the live ones row by row; on a terminal, shows its progress on stderr. Prints {"verified": [...]}; exits 1 when a row differs. ${known()}.`)
      .argument('[names...]', 'the projections to verify (default: all but the job outbox)')
      .addHelpText('after', examples('cairn projections verify', 'cairn projections verify assets')),
  async (resources: Resources, { args: [names] }) => projectionsVerify(resources, names, { progress: true }),
);
