import { fundingAgenciesProjection } from './funding-agencies/funding-agencies.projection.ts';
import { groupsProjection } from './groups/groups.projection.ts';
import { identityProjection } from './identity/identity.projection.ts';
import { countrySetsProjection, projectsProjection } from './projects/index.ts';
import { collectionsProjection } from './collections/index.ts';
import { assetsProjection } from './assets/assets.projection.ts';
import { assetNotesProjection } from './asset-notes/asset-notes.projection.ts';
import { assetRelationshipsProjection } from './asset-relationships/asset-relationships.projection.ts';
import { allocationsProjection } from './storage/allocations.projection.ts';
import { assetContentsProjection } from './storage/asset-contents.projection.ts';
import { assetMigrationsProjection } from './storage/asset-migrations.projection.ts';
import { repositoriesProjection } from './storage/repositories.projection.ts';
import { contentUploadsProjection } from './storage/content-uploads.projection.ts';
import { jobOutboxProjection } from './jobs/job-outbox.projection.ts';
import { webhooksProjection } from './webhooks/webhooks.projection.ts';
import type { Projection } from './runner/projection.ts';

export const projections: readonly Projection[] = [
  identityProjection, fundingAgenciesProjection, groupsProjection, projectsProjection, countrySetsProjection, collectionsProjection, assetsProjection, assetNotesProjection,
  assetRelationshipsProjection,
  repositoriesProjection,
  allocationsProjection,
  assetContentsProjection,
  assetMigrationsProjection,
  contentUploadsProjection,
  webhooksProjection,
  jobOutboxProjection,
];

export function projectionsHandling(eventTypes: readonly string[]): string[] {
  return projections.filter((p) => eventTypes.some((t) => p.handles.includes(t))).map((p) => p.name);
}

export function findProjection(name: string): Projection | undefined {
  return projections.find((p) => p.name === name);
}
