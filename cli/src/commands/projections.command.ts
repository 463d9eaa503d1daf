import { catchUp, findProjection, projections, rebuildBlueGreen } from '@cairn/projections';
import type { Resources } from '../runtime/resources.ts';
import { UsageError } from './args.ts';

function selected(names: readonly string[]) {
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
export async function projectionsRebuild(resources: Resources, names: readonly string[]) {
  const rebuilt: string[] = [];
  for (const projection of selected(names)) {
    await rebuildBlueGreen({ ...resources, inline: resources.projections.inline.includes(projection) }, projection);
    rebuilt.push(projection.name);
  }
  return { rebuilt };
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
  if (names.length === 0) throw new UsageError('name the projections to resume');
  const resumed: string[] = [];
  for (const projection of selected(names)) {
    await resources.db.updateTable('projection_checkpoints').set({ status: 'running', error: null, failed_event_id: null, updated_at: new Date() }).where('name', '=', projection.name).execute();
    await catchUp(resources, projection);
    resumed.push(projection.name);
  }
  return { resumed };
}
