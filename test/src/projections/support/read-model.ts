import type { Resources } from '@cairn/cli';
import { comparePositions, startOfLog, type AppendResult, type GlobalPosition } from '@cairn/platform';
import { catchUp, fundingAgenciesProjection, projections, resetProjection, type Projection, type ReadDb } from '@cairn/projections';
import { expect } from 'vitest';
import type { Planned } from './events.ts';

export type AgencyRow = {
  id: string;
  name: string;
  abbreviation: string;
  url: string;
  catalog_id: string;
  created_at: Date;
  updated_at: Date;
};

export const faTypes = fundingAgenciesProjection.handles;
export const allProjectionNames = projections.map((p) => p.name);

/** What the funding_agencies table must hold after these events (per stream, in order). */
export function expectedRows(planned: readonly Planned[]): AgencyRow[] {
  const rows = new Map<string, AgencyRow>();
  for (const { event, occurredAt } of planned) {
    const at = new Date(occurredAt);
    switch (event.type) {
      case 'FundingAgencyCreated': {
        const { id, name, abbreviation, url, catalogId } = event.data;
        if (!rows.has(id)) rows.set(id, { id, name, abbreviation, url, catalog_id: catalogId, created_at: at, updated_at: at });
        break;
      }
      case 'FundingAgencyUpdated': {
        const row = rows.get(event.data.id);
        if (!row) break;
        const c = event.data.changes;
        rows.set(row.id, {
          ...row,
          ...(c.name !== undefined ? { name: c.name } : {}),
          ...(c.abbreviation !== undefined ? { abbreviation: c.abbreviation } : {}),
          ...(c.url !== undefined ? { url: c.url } : {}),
          ...(c.catalogId !== undefined ? { catalog_id: c.catalogId } : {}),
          updated_at: at,
        });
        break;
      }
      case 'FundingAgencyDeleted':
        rows.delete(event.data.id);
        break;
    }
  }
  return [...rows.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export async function readAgencies(db: ReadDb): Promise<AgencyRow[]> {
  return db.selectFrom('funding_agencies').selectAll().orderBy('id').execute();
}

export async function agencyById(db: ReadDb, id: string): Promise<AgencyRow | undefined> {
  return db.selectFrom('funding_agencies').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function checkpointOf(db: ReadDb, name: string) {
  const row = await db.selectFrom('projection_checkpoints').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
  const position: GlobalPosition = { major: BigInt(row.major), minor: BigInt(row.minor) };
  return { ...row, position, eventsApplied: Number(row.events_applied) };
}

/** The greatest of some append positions: the one every reader reaches last. */
export function lastPosition(results: readonly (AppendResult | undefined)[]): GlobalPosition {
  let last = startOfLog;
  for (const result of results) if (result && comparePositions(result.position, last) > 0) last = result.position;
  return last;
}

/**
 * Every named projection is running, has reached `target` (the position of the last event
 * the test appended) and sits at the head of the log. The head alone is not enough: it is
 * what readers may see *now*, and any older transaction still open on the server (a
 * projector's batch, another test file's work) holds it back behind committed events.
 */
export async function caughtUp(resources: Resources, names: readonly string[], target: GlobalPosition): Promise<boolean> {
  const head = await resources.eventStore.headPosition();
  if (comparePositions(head, target) < 0) return false;
  for (const name of names) {
    const row = await resources.db.selectFrom('projection_checkpoints').select(['major', 'minor', 'status']).where('name', '=', name).executeTakeFirst();
    if (!row || row.status !== 'running') return false;
    if (comparePositions({ major: BigInt(row.major), minor: BigInt(row.minor) }, head) < 0) return false;
  }
  return true;
}

export async function lastEventInLog(resources: Resources): Promise<GlobalPosition> {
  const { rows } = await resources.pool.query<{ major: string; minor: string }>('select events.transaction_id::text as major, events.position::text as minor from events order by events.transaction_id desc, events.position desc limit 1');
  const row = rows[0];
  return row ? { major: BigInt(row.major), minor: BigInt(row.minor) } : startOfLog;
}

export async function countEvents(resources: Resources, types: readonly string[]): Promise<number> {
  const { rows } = await resources.pool.query<{ count: number }>('select count(*)::int as count from events where type = any($1::text[])', [types]);
  return rows[0]?.count ?? -1;
}

/** Empties the read model and replays the whole log: what `cairn projections rebuild` does. */
export async function rebuild(resources: Resources, projection: Projection): Promise<void> {
  await resetProjection(resources.db, projection);
  expect(await catchUp(resources, projection)).toBe('idle');
}

/**
 * A checkpoint that covers `target`: at it, or past it at the horizon the read reached
 * (a follower's checkpoint moves over what it scanned, not only to events it applied).
 */
export function expectReached(checkpoint: GlobalPosition, target: GlobalPosition | undefined): void {
  if (!target) throw new Error('no target position');
  expect(comparePositions(checkpoint, target), `checkpoint ${checkpoint.major}.${checkpoint.minor} must cover ${target.major}.${target.minor}`).toBeGreaterThanOrEqual(0);
}
