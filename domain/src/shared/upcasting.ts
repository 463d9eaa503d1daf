import type { StoredEventView } from './events.ts';

/**
 * A stored event type is never rewritten: when its shape changes, a new schema version
 * is declared and an upcaster lifts each older version one step. Every read path
 * (aggregate load, catch-up, rebuild) runs events through `upcast`.
 */
export type Upcaster = {
  readonly type: string;
  readonly fromVersion: number;
  readonly upcast: (data: unknown) => unknown;
};

export type EventCatalog = {
  readonly currentVersions: Readonly<Record<string, number>>;
  readonly upcasters: readonly Upcaster[];
};

export function createUpcaster(catalog: EventCatalog) {
  const steps = new Map<string, Upcaster>();
  for (const step of catalog.upcasters) steps.set(`${step.type}@${step.fromVersion}`, step);

  return function upcast<E extends StoredEventView>(event: E): E {
    const target = catalog.currentVersions[event.type] ?? event.schemaVersion;
    let data = event.data;
    let version = event.schemaVersion;
    while (version < target) {
      const step = steps.get(`${event.type}@${version}`);
      if (!step) throw new Error(`no upcaster for ${event.type} from version ${version}`);
      data = step.upcast(data);
      version += 1;
    }
    return version === event.schemaVersion ? event : { ...event, data, schemaVersion: version };
  };
}

export function currentVersionOf(catalog: EventCatalog, type: string): number {
  return catalog.currentVersions[type] ?? 1;
}
