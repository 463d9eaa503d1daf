import { randomUUID } from 'node:crypto';
import type { NewEvent } from '@cairn/platform';

// The payloads of /work/shared/peers/emmett-bench.mjs, event for event: an asset registered
// with 5–10 metadata keys and 1–5 tags, then metadata changes. Emmett stores its own
// metadata beside ours; Cairn's metadata has its own fixed fields (actor, correlation, time).
const recordTypes = Array.from({ length: 20 }, (_, i) => `type_${String(i).padStart(2, '0')}`);
const tags = Array.from({ length: 200 }, (_, i) => `tag${i}`);
const metaKeys = Array.from({ length: 50 }, (_, i) => `key${i}`);
const metaValues = Array.from({ length: 30 }, (_, i) => `v${i}`);
const owners = Array.from({ length: 500 }, () => randomUUID());

const pick = <T>(from: readonly T[]): T => from[Math.floor(Math.random() * from.length)] as T;
const pickN = <T>(from: readonly T[], n: number): T[] => {
  const chosen = new Set<T>();
  while (chosen.size < n) chosen.add(pick(from));
  return [...chosen];
};

function metadata(correlationId: string = randomUUID()) {
  return { actorId: pick(owners), requestId: null, correlationId, causationId: null, occurredAt: new Date().toISOString() };
}

export function assetRegistered(assetId: string): NewEvent {
  const meta: Record<string, string> = {};
  for (const key of pickN(metaKeys, 5 + Math.floor(Math.random() * 6))) meta[key] = pick(metaValues);
  return {
    id: randomUUID(),
    type: 'AssetRegistered',
    schemaVersion: 1,
    data: {
      assetId,
      title: `${pick(['Survey', 'Scan', 'Sample', 'Run', 'Dataset', 'Image'])} ${Math.floor(Math.random() * 1e6)}`,
      alias: `a-${assetId.slice(0, 8)}`,
      recordType: pick(recordTypes),
      tags: pickN(tags, 1 + Math.floor(Math.random() * 5)),
      metadata: meta,
      ownerId: pick(owners),
    },
    metadata: metadata(),
  };
}

export function metadataChanged(assetId: string): NewEvent {
  return { id: randomUUID(), type: 'AssetMetadataSet', schemaVersion: 1, data: { assetId, key: pick(metaKeys), value: pick(metaValues) }, metadata: metadata() };
}

/** An asset registered, then `n - 1` metadata changes: one append of `n` events. */
export function batchOf(assetId: string, n: number): NewEvent[] {
  return [assetRegistered(assetId), ...Array.from({ length: n - 1 }, () => metadataChanged(assetId))];
}
