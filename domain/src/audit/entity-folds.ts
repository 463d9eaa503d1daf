import { assetDecider } from '../assets/decide.ts';
import { markdownNoteDecider, notesDecider } from '../asset-notes/decide.ts';
import { relationshipDecider } from '../asset-relationships/decide.ts';
import { collectionDecider } from '../collections/decide.ts';
import { countrySetDecider } from '../country-sets/decide.ts';
import { fundingAgencyDecider } from '../funding-agencies/decide.ts';
import { webhookDecider } from '../webhooks/decide.ts';
import { groupDecider } from '../groups/decide.ts';
import { oauthClientDecider } from '../oauth-clients/decide.ts';
import { organizationDecider } from '../organizations/decide.ts';
import { projectDecider } from '../projects/decide.ts';
import { allocationOwnerDecider } from '../storage/allocation.ts';
import { repositoryDecider } from '../storage/repository.ts';
import { userDecider } from '../users/decide.ts';

/** How a stream's events fold into its state: the deciders' own `evolve`, as the commands use it. */
export type EntityFold = { readonly initialState: unknown; readonly evolve: (state: unknown, event: { type: string; data: unknown }) => unknown };

/**
 * Every kind of stream whose name ends with an entity's id, by its prefix (longest first, so
 * `asset-notes-` is not taken for `asset-`). `fold` is null where the state is the read
 * model's snapshot (allocations, content records): the audit shows their events and diffs.
 */
export const entityStreamKinds: readonly { readonly prefix: string; readonly kind: string; readonly fold: EntityFold | null }[] = [
  { prefix: 'asset-markdown-note-', kind: 'asset markdown note', fold: markdownNoteDecider as unknown as EntityFold },
  { prefix: 'asset-relationships-', kind: 'asset relationships', fold: relationshipDecider as unknown as EntityFold },
  { prefix: 'asset-notes-', kind: 'asset notes', fold: notesDecider as unknown as EntityFold },
  { prefix: 'asset-', kind: 'asset', fold: assetDecider as unknown as EntityFold },
  { prefix: 'collection-', kind: 'collection', fold: collectionDecider as unknown as EntityFold },
  { prefix: 'project-', kind: 'project', fold: projectDecider as unknown as EntityFold },
  { prefix: 'user-', kind: 'user', fold: userDecider as unknown as EntityFold },
  { prefix: 'organization-', kind: 'organization', fold: organizationDecider as unknown as EntityFold },
  { prefix: 'group-', kind: 'group', fold: groupDecider as unknown as EntityFold },
  { prefix: 'funding_agency-', kind: 'funding agency', fold: fundingAgencyDecider as unknown as EntityFold },
  { prefix: 'country_set-', kind: 'country set', fold: countrySetDecider as unknown as EntityFold },
  { prefix: 'repository-', kind: 'repository', fold: repositoryDecider as unknown as EntityFold },
  { prefix: 'allocation-', kind: 'allocation', fold: null },
  { prefix: 'allocation_owner-user-', kind: 'default allocation of a user', fold: allocationOwnerDecider as unknown as EntityFold },
  { prefix: 'allocation_owner-project-', kind: 'default allocation of a project', fold: allocationOwnerDecider as unknown as EntityFold },
  { prefix: 'allocation_owner-organization-', kind: 'default allocation of an organization', fold: allocationOwnerDecider as unknown as EntityFold },
  { prefix: 'content-', kind: 'content record', fold: null },
  { prefix: 'oauth_client-', kind: 'OAuth client', fold: oauthClientDecider as unknown as EntityFold },
  { prefix: 'webhook-', kind: 'webhook', fold: webhookDecider as unknown as EntityFold },
];

/** The streams that may hold an entity's events. */
export const entityStreamIds = (entityId: string): string[] => entityStreamKinds.map((k) => `${k.prefix}${entityId.toLowerCase()}`);

export function streamKindOf(streamId: string) {
  return entityStreamKinds.find((k) => streamId.startsWith(k.prefix)) ?? null;
}

/** A state as JSON: sets become arrays, maps objects. */
export function stateAsJson(state: unknown): unknown {
  if (state instanceof Set) return [...state].map(stateAsJson);
  if (state instanceof Map) return Object.fromEntries([...state.entries()].map(([k, v]) => [String(k), stateAsJson(v)]));
  if (Array.isArray(state)) return state.map(stateAsJson);
  if (state !== null && typeof state === 'object') return Object.fromEntries(Object.entries(state).map(([k, v]) => [k, stateAsJson(v)]));
  return state;
}
