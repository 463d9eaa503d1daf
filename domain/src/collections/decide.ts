import { principal } from '../assets/access.ts';
import type { PermissionEntry } from '../assets/events.ts';
import { subjectTypes } from '../assets/events.ts';
import type { CommandContext } from '../shared/command-context.ts';
import { assertNever, type Decider } from '../shared/decider.ts';
import { allPermissionBits, permissionBits, type PermissionName } from '../shared/permissions.ts';
import type { CollectionCommand } from './commands.ts';
import { collectionErrors } from './errors.ts';
import { collectionLimits, type CollectionDetails, type CollectionEvent, type CollectionId } from './events.ts';
import { evolve, initialState, provenanceToken, type CollectionState } from './state.ts';

type Active = Extract<CollectionState, { status: 'active' }>;

const emptyDetails = (title: string): CollectionDetails => ({ title, description: '', alias: '', tags: [], type: [], license: '', preferredRepositoryId: null });

export function decide(command: CollectionCommand, state: CollectionState, context: CommandContext): readonly CollectionEvent[] {
  switch (command.type) {
    case 'CreateRootCollection':
    case 'CreateUserRootCollection': {
      if (state.status !== 'absent') throw collectionErrors.alreadyExists();
      const details = validDetails(emptyDetails(command.title.trim().slice(0, collectionLimits.title) || 'Home'));
      const project = command.type === 'CreateRootCollection';
      return [
        {
          type: 'CollectionCreated',
          data: {
            id: command.id,
            ...details,
            parentId: null,
            ownerType: project ? 'project' : 'user',
            ownerUserId: project ? null : command.userId,
            ownerProjectId: project ? command.projectId : null,
            isRoot: true,
            revision: 1,
          },
        },
      ];
    }
    case 'CreateCollection': {
      if (state.status !== 'absent') throw collectionErrors.alreadyExists();
      const { owner, authority } = command;
      if (!context.actor.isSystemAdmin) {
        const allowed =
          owner.ownerType === 'user'
            ? owner.ownerId === context.actor.userId
            : authority.principals.includes(principal.projectRole(owner.ownerId, 'admin')) || authority.principals.includes(principal.projectRole(owner.ownerId, 'member'));
        if (!allowed) throw collectionErrors.ownerNotAllowed();
        requireFlags(command.parentFlags, ['LIST', 'WRITE_METADATA'], 'the parent collection');
      }
      const details = validDetails(command.details);
      return [
        {
          type: 'CollectionCreated',
          data: {
            id: command.id,
            ...details,
            parentId: command.parentId,
            ownerType: owner.ownerType,
            ownerUserId: owner.ownerType === 'user' ? owner.ownerId : null,
            ownerProjectId: owner.ownerType === 'project' ? owner.ownerId : null,
            isRoot: false,
            revision: 1,
          },
        },
      ];
    }
    case 'DeleteRootCollection':
      if (state.status !== 'active' || !state.isRoot || state.ownerProjectId !== command.projectId) throw collectionErrors.notFound();
      return [{ type: 'CollectionDeleted', data: { id: command.id } }];
    default:
      break;
  }
  const collection = active(state);
  const revision = collection.revision + 1;
  switch (command.type) {
    case 'ChangeCollection': {
      visible(command.flags, context);
      requireFlags(command.flags, ['WRITE_METADATA'], 'the collection', context);
      matches(command.id, collection, command.ifMatch);
      const changes = changed(collection.details, validDetails(command.changes));
      return Object.keys(changes).length === 0 ? [] : [{ type: 'CollectionUpdated', data: { id: command.id, changes, revision } }];
    }
    case 'MoveCollection': {
      visible(command.flags, context);
      requireFlags(command.flags, ['MANAGE'], 'the collection', context);
      requireFlags(command.parentFlags, ['LIST', 'WRITE_METADATA'], 'the new parent', context);
      matches(command.id, collection, command.ifMatch);
      if (collection.isRoot) throw collectionErrors.root();
      if (command.parentId === command.id || command.parentAncestors.includes(command.id)) throw collectionErrors.cycle();
      if (command.parentId === collection.parentId) return [];
      return [{ type: 'CollectionMoved', data: { id: command.id, parentId: command.parentId, revision } }];
    }
    case 'DeleteCollection': {
      if (!command.cascaded) {
        visible(command.flags, context);
        requireFlags(command.flags, ['DELETE'], 'the collection', context);
        if (collection.isRoot) throw collectionErrors.root();
        if (!command.empty && !command.recursive) throw collectionErrors.notEmpty();
      }
      return [{ type: 'CollectionDeleted', data: { id: command.id } }];
    }
    case 'ReplaceCollectionPermissions': {
      visible(command.flags, context);
      requireFlags(command.flags, ['MANAGE'], 'the collection', context);
      const entries = validEntries(command.entries);
      if (sameEntries(entries, collection.entries)) return [];
      return [{ type: 'CollectionPermissionsSet', data: { id: command.id, entries, revision } }];
    }
    default:
      return assertNever(command);
  }
}

function active(state: CollectionState): Active {
  if (state.status !== 'active') throw collectionErrors.notFound();
  return state;
}

/** A collection the caller may not see answers like a missing one (DECISIONS.md 1). */
function visible(flags: number, context: CommandContext): void {
  if (!context.actor.isSystemAdmin && (flags & permissionBits.READ_METADATA) === 0) throw collectionErrors.notFound();
}

function requireFlags(flags: number, names: readonly [PermissionName, ...PermissionName[]], on: string, context?: CommandContext): void {
  if (context?.actor.isSystemAdmin) return;
  const needed = names.reduce((bits, name) => bits | permissionBits[name], 0);
  if ((flags & needed) !== needed) throw collectionErrors.lacks(names, on);
}

function matches(id: string, collection: Active, ifMatch: string | undefined): void {
  if (ifMatch !== undefined && ifMatch !== provenanceToken(id, collection.revision)) throw collectionErrors.stale();
}

function validDetails<D extends Partial<CollectionDetails>>(details: D): D {
  const result: { -readonly [K in keyof CollectionDetails]?: CollectionDetails[K] } = { ...details };
  const text = (field: string, value: string, max: number, required = false) => {
    const trimmed = value.trim();
    if (required && trimmed.length === 0) throw collectionErrors.invalid(field, `The ${field} may not be blank.`);
    if (trimmed.length > max) throw collectionErrors.invalid(field, `The ${field} may be at most ${max} characters.`);
    return trimmed;
  };
  const list = (field: string, values: readonly string[]) => {
    const cleaned = [...new Set(values.map((v) => v.trim()))];
    if (cleaned.length > collectionLimits.tagCount) throw collectionErrors.invalid(field, `At most ${collectionLimits.tagCount} values.`);
    if (cleaned.some((v) => v.length === 0 || v.length > collectionLimits.tag)) throw collectionErrors.invalid(field, `Each value is 1 to ${collectionLimits.tag} characters.`);
    return cleaned;
  };
  if (details.title !== undefined) result.title = text('title', details.title, collectionLimits.title, true);
  if (details.description !== undefined) result.description = text('description', details.description, collectionLimits.description);
  if (details.alias !== undefined) result.alias = text('alias', details.alias, collectionLimits.alias);
  if (details.license !== undefined) result.license = text('license', details.license, collectionLimits.license);
  if (details.tags !== undefined) result.tags = list('tags', details.tags);
  if (details.type !== undefined) result.type = list('type', details.type);
  return result as D;
}

function changed(current: CollectionDetails, requested: Partial<CollectionDetails>): Partial<CollectionDetails> {
  const changes: Record<string, unknown> = {};
  for (const key of Object.keys(requested) as (keyof CollectionDetails)[]) {
    const value = requested[key];
    if (value !== undefined && JSON.stringify(value) !== JSON.stringify(current[key])) changes[key] = value;
  }
  return changes as Partial<CollectionDetails>;
}

/** Field by field: entries read back from the log need not keep their keys' order (jsonb does not). */
function sameEntries(a: readonly PermissionEntry[], b: readonly PermissionEntry[]): boolean {
  return a.length === b.length && a.every((e, i) => e.subjectType === b[i]?.subjectType && e.subjectId === b[i]?.subjectId && e.flags === b[i]?.flags);
}

function validEntries(entries: readonly PermissionEntry[]): PermissionEntry[] {
  const bySubject = new Map<string, PermissionEntry>();
  for (const entry of entries) {
    if (!(subjectTypes as readonly string[]).includes(entry.subjectType)) throw collectionErrors.invalid('subject_type', 'The subject type is one of user, group, organization, project, public.');
    const subjectId = entry.subjectId?.toLowerCase() ?? null;
    if ((entry.subjectType === 'public') !== (subjectId === null)) throw collectionErrors.invalid('subject_id', 'Every subject but public names an id; public names none.');
    if (!Number.isInteger(entry.flags) || entry.flags < 0 || (entry.flags & ~allPermissionBits) !== 0) throw collectionErrors.invalid('flags', 'Flags are a sum of the bits of GET /api/permissions/flags/.');
    bySubject.set(`${entry.subjectType}:${subjectId ?? ''}`, { subjectType: entry.subjectType, subjectId, flags: entry.flags });
  }
  return [...bySubject.values()].filter((e) => e.flags !== 0).sort((a, b) => a.subjectType.localeCompare(b.subjectType) || (a.subjectId ?? '').localeCompare(b.subjectId ?? ''));
}

export const collectionDecider: Decider<CollectionCommand, CollectionEvent, CollectionState> = { initialState, evolve, decide };

export const collectionStream = (id: CollectionId | string) => `collection-${id}`;
