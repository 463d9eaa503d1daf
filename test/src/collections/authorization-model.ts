/**
 * A reference model of who may do what on assets and collections (DECISIONS.md 2), knowing
 * nothing of principal keys or read models: owners, entries, the tree, and memberships.
 * The property test (authorization-model.property.int.spec.ts) drives the service and this
 * model side by side; every call must succeed exactly when the model allows it, and every
 * user's flags on every asset must be the model's after every step.
 */

export const userCount = 4;
export type UserIndex = 0 | 1 | 2 | 3;
export type ProjectRole = 'admin' | 'member' | 'viewer';
export type Subject = { kind: 'user'; user: UserIndex } | { kind: 'group' } | { kind: 'organization' } | { kind: 'project' } | { kind: 'public' };
export type Entry = { subject: Subject; flags: number };
export type Owner = { type: 'user'; user: UserIndex } | { type: 'project' };

export type ModelCollection = { id: string; owner: Owner; parent: string | null; root: boolean; entries: Entry[] };
export type ModelAsset = { id: string; owner: Owner; entries: Entry[]; holders: string[] };

/**
 * User 0 administers the organization and the project for good (a project keeps an admin);
 * users 1–3 come and go. Leaving the organization ends its group memberships (docs/groups.md).
 */
export type Model = {
  inOrganization: boolean[];
  inGroup: boolean[];
  projectRole: (ProjectRole | null)[];
  collections: ModelCollection[];
  assets: ModelAsset[];
};

const READ = 1;
const WRITE_METADATA = 2;
const LIST = 64;
const MANAGE = 256;
const ALL = 511;
const roleFlags: Record<ProjectRole, number> = { admin: ALL, member: 127, viewer: 85 };

export function emptyModel(): Model {
  return { inOrganization: [true, false, false, false], inGroup: [false, false, false, false], projectRole: ['admin', null, null, null], collections: [], assets: [] };
}

function names(m: Model, u: UserIndex, subject: Subject): boolean {
  switch (subject.kind) {
    case 'public':
      return true;
    case 'user':
      return subject.user === u;
    case 'group':
      return m.inGroup[u] === true;
    case 'organization':
      return m.inOrganization[u] === true;
    case 'project':
      return m.projectRole[u] != null;
  }
}

function ownerFlags(m: Model, owner: Owner, u: UserIndex): number {
  if (owner.type === 'user') return owner.user === u ? ALL : 0;
  const role = m.projectRole[u];
  return role ? roleFlags[role] : 0;
}

const entryFlags = (m: Model, entries: readonly Entry[], u: UserIndex) => entries.reduce((flags, e) => (names(m, u, e.subject) ? flags | e.flags : flags), 0);

export function collectionById(m: Model, id: string): ModelCollection {
  const c = m.collections.find((x) => x.id === id);
  if (!c) throw new Error(`no collection ${id} in the model`);
  return c;
}

/** The collection and its ancestors, itself first. */
function chain(m: Model, c: ModelCollection): ModelCollection[] {
  const found = [c];
  for (let at = c; at.parent !== null; ) {
    at = collectionById(m, at.parent);
    found.push(at);
  }
  return found;
}

/** Its owner's flags, and the entries on it and on its ancestors (docs/collections.md). */
export function collectionFlags(m: Model, c: ModelCollection, u: UserIndex): number {
  return chain(m, c).reduce((flags, x) => flags | entryFlags(m, x.entries, u), ownerFlags(m, c.owner, u));
}

/** Its owner's flags, its entries, and the entries (never the ownership) of every collection holding it and their ancestors. */
export function assetFlags(m: Model, a: ModelAsset, u: UserIndex): number {
  let flags = ownerFlags(m, a.owner, u) | entryFlags(m, a.entries, u);
  for (const holder of a.holders) for (const c of chain(m, collectionById(m, holder))) flags |= entryFlags(m, c.entries, u);
  return flags;
}

const sameOwner = (a: Owner, b: Owner) => a.type === b.type && (a.type === 'project' || (b.type === 'user' && a.user === b.user));
const createsFor = (m: Model, u: UserIndex, owner: Owner) => (owner.type === 'user' ? owner.user === u : m.projectRole[u] === 'admin' || m.projectRole[u] === 'member');
const has = (flags: number, need: number) => (flags & need) === need;

/**
 * DECISIONS.md 2: a group, project or organization the caller cannot see is refused like an
 * unknown id, by the rules of their own read routes (docs/assets.md "Disclosure"): a group
 * or the organization to its members, the project to its members and the organization's
 * admins (user 0). Users and the public may always be named.
 */
export function maySee(m: Model, u: UserIndex, subject: Subject): boolean {
  switch (subject.kind) {
    case 'user':
    case 'public':
      return true;
    case 'group':
    case 'organization':
      return m.inOrganization[u] === true;
    case 'project':
      return m.projectRole[u] != null || u === 0;
  }
}

const sameSubject = (a: Subject, b: Subject) => a.kind === b.kind && (a.kind !== 'user' || (b.kind === 'user' && a.user === b.user));
/** A hidden subject already on the target may be sent back: a co-manager's round trip of what they read. */
const mayName = (m: Model, u: UserIndex, entries: readonly Entry[], on: readonly Entry[]) => entries.every((e) => maySee(m, u, e.subject) || on.some((x) => sameSubject(x.subject, e.subject)));

/** Whether each call is allowed, as the model sees the world before it. */
export const allowed = {
  createAsset(m: Model, u: UserIndex, owner: Owner, into: ModelCollection | null): boolean {
    if (!createsFor(m, u, owner)) return false;
    if (!into) return true;
    const cf = collectionFlags(m, into, u);
    // The new asset's MANAGE comes from its ownership alone.
    return has(cf, READ | WRITE_METADATA) && has(ownerFlags(m, owner, u), MANAGE);
  },
  createCollection(m: Model, u: UserIndex, owner: Owner, parent: ModelCollection): boolean {
    if (owner.type === 'project' && m.projectRole[u] == null) return false;
    const pf = collectionFlags(m, parent, u);
    return has(pf, READ) && sameOwner(parent.owner, owner) && createsFor(m, u, owner) && has(pf, LIST | WRITE_METADATA);
  },
  assetEntries(m: Model, u: UserIndex, a: ModelAsset, entries: readonly Entry[]): boolean {
    return has(assetFlags(m, a, u), READ | MANAGE) && mayName(m, u, entries, a.entries);
  },
  collectionEntries(m: Model, u: UserIndex, c: ModelCollection, entries: readonly Entry[]): boolean {
    return has(collectionFlags(m, c, u), READ | MANAGE) && mayName(m, u, entries, c.entries);
  },
  attach(m: Model, u: UserIndex, c: ModelCollection, a: ModelAsset): boolean {
    return has(collectionFlags(m, c, u), READ | WRITE_METADATA) && has(assetFlags(m, a, u), READ | MANAGE);
  },
  detach(m: Model, u: UserIndex, c: ModelCollection, a: ModelAsset): boolean {
    const cf = collectionFlags(m, c, u);
    const af = assetFlags(m, a, u);
    if (!has(af, READ)) return false;
    const organizes = has(cf, READ | WRITE_METADATA);
    return (organizes || has(af, MANAGE)) && a.holders.includes(c.id);
  },
  move(m: Model, u: UserIndex, c: ModelCollection, parent: ModelCollection): boolean {
    const cf = collectionFlags(m, c, u);
    const pf = collectionFlags(m, parent, u);
    const cycle = chain(m, parent).some((x) => x.id === c.id);
    return has(cf, READ | MANAGE) && has(pf, READ | LIST | WRITE_METADATA) && sameOwner(c.owner, parent.owner) && !c.root && !cycle;
  },
  transfer(m: Model, u: UserIndex, a: ModelAsset, to: Owner): boolean {
    if (!has(assetFlags(m, a, u), READ | MANAGE)) return false;
    return sameOwner(a.owner, to) || createsFor(m, u, to);
  },
};
