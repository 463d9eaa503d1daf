/**
 * The collections the bench seeds, planned before anything is written (collections-seed.ts
 * writes them): the forest's shape, its landmarks, and who is granted what where.
 */
import { randomUUID } from 'node:crypto';
import type { assets } from '@cairn/domain';
import { between, pick, skewed, topics, type Random } from './asset-data.ts';

/** Collections the bench looks up by title (each title is unique in the seed). */
export const landmarks = {
  moveSource: 'Move source',
  moveTarget: 'Move target',
  moved: 'Moved subtree',
  large: 'Large collection',
} as const;

export type CollectionSize = { readonly assets: number; readonly collections: number };

/** The share of assets attached to the large collection besides their own; the moved subtree's share of assets and of collections. */
export const shares = { large: 0.2, movedAssets: 0.05, movedCollections: 0.1 } as const;

export type Owner = { readonly ownerType: 'user' | 'project'; readonly ownerId: string; readonly root: string; readonly actor: string };

export type Node = {
  readonly id: string;
  readonly parentId: string;
  readonly level: number;
  readonly owner: Owner;
  readonly title: string;
  readonly alias: string;
  readonly entries: readonly assets.PermissionEntry[];
};

export type Facts = {
  readonly adminId: string;
  readonly callerId: string;
  readonly observerId: string;
  readonly owners: readonly Owner[];
  readonly projectOwners: readonly Owner[];
  readonly organizations: readonly string[];
  readonly groups: readonly string[];
  readonly projects: readonly string[];
  readonly callerGroups: readonly string[];
};

/** Counts per level whose sum is `size`: `top` at the first level, then a constant ratio (found by bisection). */
function levelCounts(size: number, levels: number, top: number | null): number[] {
  const counts = (r: number) => Array.from({ length: levels }, (_, k) => (top === null ? r ** (k + 1) : top * r ** k));
  let lo = 1;
  let hi = Math.max(2, size);
  for (let i = 0; i < 60; i += 1) {
    const mid = (lo + hi) / 2;
    if (counts(mid).reduce((a, b) => a + b, 0) < size) lo = mid;
    else hi = mid;
  }
  const rounded = counts(lo).map((c) => Math.max(1, Math.round(c)));
  rounded[levels - 1] = Math.max(1, size - rounded.slice(0, -1).reduce((a, b) => a + b, 0));
  return rounded;
}

const flagChoices = [1, 1 | 4, 1 | 4 | 16 | 64, 1 | 2 | 4 | 8, 1 | 2 | 4 | 8 | 16 | 32 | 64, 511];
/** The share of collections at each level (1 to 5) that have permission entries of their own. */
const grantShare = [0.5, 0.3, 0.2, 0.1, 0.05];
const kinds = ['survey', 'campaign', 'archive', 'working set', 'release', 'field season', 'curated set', 'inbox'];

/** Sorted as the decider stores them: by subject type, then id. */
const sortedEntries = (entries: readonly assets.PermissionEntry[]) =>
  [...new Map(entries.map((e) => [`${e.subjectType}:${e.subjectId ?? ''}`, e])).values()].sort((a, b) => a.subjectType.localeCompare(b.subjectType) || (a.subjectId ?? '').localeCompare(b.subjectId ?? ''));

function randomEntries(random: Random, level: number, facts: Facts): assets.PermissionEntry[] {
  if (random() >= (grantShare[level - 1] ?? 0)) return [];
  const entries: assets.PermissionEntry[] = [];
  for (let i = between(random, 1, 3); i > 0; i -= 1) {
    const kind = random();
    const flags = pick(random, flagChoices);
    if (kind < 0.35) entries.push({ subjectType: 'organization', subjectId: random() < 0.4 ? (facts.organizations[0] ?? '') : pick(random, facts.organizations), flags });
    else if (kind < 0.65) entries.push({ subjectType: 'group', subjectId: pick(random, facts.groups), flags });
    else if (kind < 0.8) entries.push({ subjectType: 'project', subjectId: pick(random, facts.projects), flags });
    else if (kind < 0.95) entries.push({ subjectType: 'user', subjectId: pick(random, facts.owners).ownerId, flags });
    else entries.push({ subjectType: 'public', subjectId: null, flags: 1 | 4 | 64 });
  }
  return sortedEntries(entries);
}

/**
 * The forest: every collection hangs under its owner's root, at most five levels below it.
 * Two trees are set apart: the move's (root, `Move source` and `Move target` at level 1,
 * `Moved subtree` under the source with a tenth of the collections below it, down to level
 * 5; the source grants the observer READ_METADATA and LIST, the target nothing), and the
 * large collection's (level 3, under a level-1 collection granting one of the caller's
 * groups LIST and a level-2 one granting the caller's organization READ_METADATA). The
 * rest are trees of about 200 collections each, owned by users (skewed) or projects, with
 * entries on half of the level-1 collections down to 5 % of the level-5 ones. Each tree
 * lists its nodes level by level; trees interleave in the log.
 */
export function planForest(random: Random, size: CollectionSize, facts: Facts): { trees: Node[][]; moved: Node[]; large: Node } {
  const moveOwner = facts.owners[1] ?? facts.owners[0];
  const largeOwner = facts.owners[2] ?? facts.owners[0];
  if (!moveOwner || !largeOwner) throw new Error('the asset seed made no owners');
  let n = 0;
  const node = (parentId: string, level: number, owner: Owner, entries: readonly assets.PermissionEntry[] = [], title?: string): Node => {
    n += 1;
    const topic = skewed(random, topics, 1.3);
    const made = title ?? `${topic[0]?.toUpperCase()}${topic.slice(1)} ${pick(random, kinds)} ${n}`;
    return { id: randomUUID(), parentId, level, owner, title: made, alias: random() < 0.3 ? '' : `${topic.replace(/ /g, '-')}-${n.toString(36)}`, entries: sortedEntries(entries) };
  };
  const grow = (tops: readonly Node[], counts: readonly number[], owner: Owner): Node[] => {
    const made: Node[] = [];
    let previous = tops;
    for (const count of counts) {
      const level: Node[] = [];
      for (let i = 0; i < count; i += 1) {
        const parent = i < previous.length ? (previous[i] as Node) : pick(random, previous);
        level.push(node(parent.id, parent.level + 1, owner, randomEntries(random, parent.level + 1, facts)));
      }
      made.push(...level);
      previous = level;
    }
    return made;
  };

  const movedCount = Math.max(10, Math.round(size.collections * shares.movedCollections));
  const source = node(moveOwner.root, 1, moveOwner, [{ subjectType: 'user', subjectId: facts.observerId, flags: 1 | 64 }], landmarks.moveSource);
  const target = node(moveOwner.root, 1, moveOwner, [], landmarks.moveTarget);
  const movedTop = node(source.id, 2, moveOwner, [], landmarks.moved);
  const moved = [movedTop, ...grow([movedTop], levelCounts(movedCount - 1, 3, null), moveOwner)];

  const callerGroup = facts.callerGroups[0] ?? facts.groups[0] ?? '';
  const shared = node(largeOwner.root, 1, largeOwner, [{ subjectType: 'group', subjectId: callerGroup, flags: 1 | 4 | 16 | 64 }]);
  const organizationWide = node(shared.id, 2, largeOwner, [{ subjectType: 'organization', subjectId: facts.organizations[0] ?? '', flags: 1 }]);
  const large = node(organizationWide.id, 3, largeOwner, [], landmarks.large);

  const trees: Node[][] = [[source, target, ...moved], [shared, organizationWide, large]];
  let rest = size.collections - trees.flat().length;
  const count = Math.max(3, Math.round(rest / 200));
  for (let t = 0; t < count && rest > 0; t += 1) {
    const want = t === count - 1 ? rest : Math.min(rest, Math.max(5, Math.round((rest / (count - t)) * (0.5 + random()))));
    const owner = random() < 0.9 ? skewed(random, facts.owners, 1.5) : pick(random, facts.projectOwners);
    const root: Node = { id: owner.root, parentId: '', level: 0, owner, title: '', alias: '', entries: [] };
    trees.push(grow([root], levelCounts(want, 5, null), owner));
    rest -= want;
  }
  return { trees, moved, large };
}

/** Trees interleaved in the log, each in its own order (parents first): a random tree's next node each time. */
export function interleave(random: Random, trees: readonly Node[][]): Node[] {
  const next = trees.map(() => 0);
  const order: Node[] = [];
  const open = trees.map((_, i) => i).filter((i) => (trees[i]?.length ?? 0) > 0);
  while (open.length > 0) {
    const at = Math.floor(random() * open.length);
    const t = open[at] as number;
    const tree = trees[t] as Node[];
    order.push(tree[next[t] ?? 0] as Node);
    next[t] = (next[t] ?? 0) + 1;
    if ((next[t] ?? 0) >= tree.length) open.splice(at, 1);
  }
  return order;
}
