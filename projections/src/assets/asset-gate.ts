import { evaluateGeoPolicy, httpErrors, maxReportedFields, type Caller, type ClientRequest } from '@cairn/platform';
import { permissionBits } from '@cairn/domain';
import { affiliationCountryOf, findProjectRecord, geoFactsFor, geoPolicyOf, restrictedProjects } from '../projects/projects.read.ts';
import { geoOf, type ProjectGateDeps } from '../projects/project-gate.ts';
import { assetStanding, type AssetStanding } from './assets.read.ts';
import { assetsStanding } from './permissions.read.ts';

export type OpenAsset = AssetStanding & { readonly asset: NonNullable<AssetStanding['asset']> };

/**
 * Every route under /api/assets/{id}/ passes here first, on both sides: an asset the
 * caller may not read (READ_METADATA) is 404, exactly like one that does not exist
 * (DECISIONS.md 1); then the geographic restriction of the project that owns it is
 * enforced (403 `geo_restricted`), as for the project itself.
 */
export async function openAsset(deps: ProjectGateDeps, assetId: string, caller: Caller | null, request: ClientRequest): Promise<OpenAsset> {
  if (!caller) throw httpErrors.unauthenticated();
  const standing = await assetStanding(deps.db, assetId, caller);
  const asset = standing.asset;
  if (!asset || (asset.flags & permissionBits.READ_METADATA) === 0) throw httpErrors.notFound('Asset not found.');
  if (asset.ownerRestricted) await enforceProjectRestriction(deps, asset.ownerId, caller, request);
  return { ...standing, asset };
}

/** The restriction of a project that owns assets, judged on this request. */
export async function enforceProjectRestriction(deps: ProjectGateDeps, projectId: string, caller: Caller, request: ClientRequest): Promise<void> {
  const record = await findProjectRecord(deps.db, projectId, caller.userId);
  if (!record?.geobound_enabled) return;
  const facts = await geoFactsFor(deps.db, caller.userId, [record]);
  await geoOf(deps).enforce({
    request,
    policy: geoPolicyOf(record, facts),
    affiliationCountry: async () => affiliationCountryOf(facts, record.organization_id),
    subject: { projectId: record.id, userId: caller.userId },
  });
}

/**
 * The projects whose restriction denies this request: listings leave out the assets they own.
 * With the caller's facts read already, nothing more is read when no project is restricted.
 */
export async function deniedProjectIds(deps: ProjectGateDeps, caller: Caller, request: ClientRequest, viewer?: { readonly restricted?: boolean }): Promise<string[]> {
  if (viewer?.restricted === false) return [];
  const records = await restrictedProjects(deps.db, caller.userId);
  if (records.length === 0) return [];
  const location = geoOf(deps).locate(request);
  const facts = await geoFactsFor(deps.db, caller.userId, records);
  return records
    .filter((record) => !evaluateGeoPolicy(geoPolicyOf(record, facts), { ...location, affiliationCountry: affiliationCountryOf(facts, record.organization_id) }).allowed)
    .map((record) => record.id);
}

/**
 * Several assets at once (the bulk routes), each as openAsset opens one: an asset the
 * caller may not read, or that does not exist, is 404 naming its place in the body's list;
 * then the restriction of every project that owns one of them. The ids come back
 * lower-cased and once each.
 */
export async function openAssets(deps: ProjectGateDeps, assetIds: readonly string[], caller: Caller, request: ClientRequest) {
  const ids = [...new Set(assetIds.map((id) => id.toLowerCase()))];
  const standing = await assetsStanding(deps.db, ids, caller);
  refuseUnreadableAssets('asset_ids', assetIds, standing.assets);
  const owners = new Set([...standing.assets.values()].filter((a) => a.ownerType === 'project').map((a) => a.ownerId));
  for (const projectId of owners) await enforceProjectRestriction(deps, projectId, caller, request);
  return { ids, ...standing };
}

/**
 * A list of asset ids in a body: each one missing, or that the caller may not read, is named
 * by its place in the list (`asset_ids.3`), all with the one answer unknown ids get
 * (DECISIONS.md 1). At most `maxReportedFields` places are named.
 */
export function refuseUnreadableAssets(field: string, sent: readonly string[], assets: ReadonlyMap<string, { readonly flags: number }>): void {
  const readable = (id: string) => ((assets.get(id.toLowerCase())?.flags ?? 0) & permissionBits.READ_METADATA) !== 0;
  const unseen = sent.flatMap((id, n) => (readable(id) ? [] : [`${field}.${n}`]));
  if (unseen.length > 0) throw httpErrors.unknownReference(unseen.slice(0, maxReportedFields), 'An asset the request names was not found.');
}
