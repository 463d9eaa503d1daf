import { assets, collections } from '@cairn/domain';
import { sql } from 'kysely';
import type { Projection } from '../runner/projection.ts';
import { custom, insert, remove, update, upsert, type RowOp } from '../runner/row-ops.ts';

type Event = collections.CollectionEvent;
type Details = Partial<collections.CollectionDetails>;

function detailColumns(details: Details) {
  return {
    ...(details.title !== undefined ? { title: details.title } : {}),
    ...(details.description !== undefined ? { description: details.description } : {}),
    ...(details.alias !== undefined ? { alias: details.alias } : {}),
    ...(details.tags !== undefined ? { tags: [...details.tags] } : {}),
    ...(details.type !== undefined ? { type: [...details.type] } : {}),
    ...(details.license !== undefined ? { license: details.license } : {}),
    ...(details.preferredRepositoryId !== undefined ? { preferred_repository_id: details.preferredRepositoryId } : {}),
  };
}

const token = (id: string, revision: number) => ({ revision, provenance_token: collections.provenanceToken(id, revision) });

/**
 * The ancestors' entries of every collection under `top` (and of `top` itself when it
 * moved), OR-ed: what flows down to it (docs/collections.md). One statement for the whole
 * subtree; a change of `top`'s own entries leaves its inherited part as it is.
 */
const inheritBelow = (top: string, includingTop: boolean) =>
  custom(async (db) => {
    await sql`
      update collections t set inherited_grants = coalesce((
        select jsonb_object_agg(g.principal, g.flags) from (
          select e.key as principal, bit_or(e.value::integer) as flags
          from collections a, jsonb_each_text(a.entry_grants) e
          where a.id = any(t.parent_ids) group by e.key) g), '{}')
      where t.parent_ids @> array[${top}::uuid] ${includingTop ? sql`or t.id = ${top}::uuid` : sql``}`.execute(db);
  });

/** Inserts the readers' postings (collection_reader_order, migration 0045) of the rows of the CTE `rows` (id, created_at, readers) that are not there yet. */
const insertPostingsOf = (rows: string) => sql`
  insert into collection_reader_order (collection_id, principal, created_at)
  select distinct s.id, r.principal, s.created_at from ${sql.table(rows)} s, unnest(s.readers) r(principal)
  on conflict (collection_id, principal) do nothing`;

/**
 * The readers' postings of `top` and every collection under it, made to match their
 * `readers` again: the principals gone are deleted, the new ones added, the others left as
 * they are. Run after the subtree's grants are final (a move, a change of entries).
 */
const syncReadersBelow = (top: string) =>
  custom(async (db) => {
    await sql`
      with s as (select c.id, c.created_at, c.readers from collections c where c.id = ${top}::uuid or c.parent_ids @> array[${top}::uuid]),
      gone as (delete from collection_reader_order o using s where o.collection_id = s.id and not (o.principal = any(s.readers)))
      ${insertPostingsOf('s')}`.execute(db);
  });

/**
 * The version of what the collections give a page's callers (migration 0054): the id of the
 * last event that moved a collection, set its entries or deleted it. A page leaves out the
 * facts of its collections when it finds the version the service kept them under
 * (projections/src/assets/held-facts-cache.ts), so every event that changes an existing
 * collection's readers, entries or inherited grants writes it, in its own transaction. A
 * creation changes no existing collection's facts (the process reads a new one when a page
 * first names it).
 */
const factsChanged = (eventId: string): RowOp => upsert('collection_facts_version', { singleton: true, version: eventId }, { key: ['singleton'], update: ['version'] });

/** What `readers` (cairn_readers, migration 0019) holds for grants of an owner alone: the principals that may read. */
const readersOfRoot = (grants: Readonly<Record<string, number>>) =>
  Object.entries(grants)
    .filter(([, flags]) => (flags & 1) !== 0)
    .map(([principal]) => principal);

/**
 * Collections (interface 2.3) as a tree: `parent_ids` is the ancestor chain, root first,
 * and `inherited_grants` what the ancestors' entries give. A move or a change of entries
 * rewrites the rows of the whole subtree, rows of other streams: `serialized`, so that
 * inline appends apply in the log's order and a rebuild equals the live tables.
 */
export const collectionsProjection: Projection = {
  name: 'collections',
  // 3: the tree, grants and provenance tokens (rebuilt once).
  version: 3,
  serialized: true,
  handles: [...collections.collectionEventTypes],
  tables: ['collection_permissions', 'collections', 'collection_reader_order', 'collection_facts_version'],
  vacuumAfterRebuild: ['collection_reader_order'],
  // A version naming the state, written only by events after an upgrade: `projections verify` leaves it out.
  unverified: ['collection_facts_version'],
  project(recorded) {
    const event = { type: recorded.type, data: recorded.data } as Event;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'CollectionCreated': {
        const d = event.data;
        const owner: assets.AssetOwner = d.ownerType === 'project' ? { ownerType: 'project', ownerId: d.ownerProjectId ?? '' } : { ownerType: 'user', ownerId: d.ownerUserId ?? '' };
        const row = {
          id: d.id,
          title: d.title,
          description: d.description,
          alias: d.alias,
          tags: [...d.tags],
          type: [...d.type],
          license: d.license,
          parent_id: d.parentId,
          parent_ids: [] as string[],
          owner_type: d.ownerType,
          owner_user_id: d.ownerUserId,
          owner_project_id: d.ownerProjectId,
          is_root: d.isRoot,
          preferred_repository_id: d.preferredRepositoryId,
          owner_grants: { ...assets.ownerGrants(owner) },
          ...token(d.id, d.revision ?? 1),
          created_at: at,
          updated_at: at,
        };
        // A root's readers are its owner's principals that may read (it has no entries yet,
        // and nothing above it): its postings are plain rows, which a rebuild writes in batches.
        if (d.parentId === null) return [insert('collections', row, { key: ['id'] }), ...readersOfRoot(row.owner_grants).map((principal) => insert('collection_reader_order', { collection_id: d.id, principal, created_at: at }, { key: ['collection_id', 'principal'] }))];
        const parentId = d.parentId;
        return [
          insert('collections', row, { key: ['id'] }),
          // Under a parent, what flows down from it decides; its postings are written from the row as updated, in the same statement.
          custom(async (db) => {
            await sql`with t as (update collections t set parent_ids = p.parent_ids || p.id, inherited_grants = cairn_grants_union(p.entry_grants, p.inherited_grants)
                from collections p where p.id = ${parentId}::uuid and t.id = ${d.id}::uuid returning t.id, t.created_at, t.readers)
              ${insertPostingsOf('t')}`.execute(db);
          }),
        ];
      }
      case 'CollectionUpdated':
        return [update('collections', { id: event.data.id }, { ...detailColumns(event.data.changes), ...token(event.data.id, event.data.revision), updated_at: at })];
      case 'CollectionMoved': {
        const { id, parentId, revision } = event.data;
        return [
          update('collections', { id }, { parent_id: parentId, ...token(id, revision), updated_at: at }),
          // The moved collection's chain becomes the new parent's plus the parent; each
          // descendant keeps its part of the chain from the moved collection down.
          custom(async (db) => {
            await sql`
              update collections t set parent_ids = p.parent_ids || p.id || case when t.id = ${id}::uuid then '{}'::uuid[] else t.parent_ids[array_position(t.parent_ids, ${id}::uuid):] end
              from collections p where p.id = ${parentId}::uuid and (t.id = ${id}::uuid or t.parent_ids @> array[${id}::uuid])`.execute(db);
          }),
          inheritBelow(id, true),
          syncReadersBelow(id),
          factsChanged(recorded.id),
        ];
      }
      case 'CollectionPermissionsSet': {
        const { id, entries, revision } = event.data;
        return [
          remove('collection_permissions', { collection_id: id }),
          ...entries.map((e) =>
            insert('collection_permissions', { collection_id: id, subject_type: e.subjectType, subject_key: e.subjectId ?? 'public', flags: e.flags }, { key: ['collection_id', 'subject_type', 'subject_key'] }),
          ),
          update('collections', { id }, { entry_grants: { ...assets.entryGrants(entries) }, ...token(id, revision), updated_at: at }),
          inheritBelow(id, false),
          syncReadersBelow(id),
          factsChanged(recorded.id),
        ];
      }
      case 'CollectionDeleted':
        return [
          remove('collection_permissions', { collection_id: event.data.id }),
          remove('collection_reader_order', { collection_id: event.data.id }),
          remove('collections', { id: event.data.id }),
          factsChanged(recorded.id),
        ];
    }
  },
};
