import type { DomainEvent } from '../shared/events.ts';

/** DataCite relation types (DataCite Metadata Schema 4.5, relationType). */
export const relationshipTypes = [
  'IsCitedBy',
  'Cites',
  'IsSupplementTo',
  'IsSupplementedBy',
  'IsContinuedBy',
  'Continues',
  'IsDescribedBy',
  'Describes',
  'HasMetadata',
  'IsMetadataFor',
  'HasVersion',
  'IsVersionOf',
  'IsNewVersionOf',
  'IsPreviousVersionOf',
  'IsPartOf',
  'HasPart',
  'IsPublishedIn',
  'IsReferencedBy',
  'References',
  'IsDocumentedBy',
  'Documents',
  'IsCompiledBy',
  'Compiles',
  'IsVariantFormOf',
  'IsOriginalFormOf',
  'IsIdenticalTo',
  'IsReviewedBy',
  'Reviews',
  'IsDerivedFrom',
  'IsSourceOf',
  'IsRequiredBy',
  'Requires',
  'IsObsoletedBy',
  'Obsoletes',
  'IsCollectedBy',
  'Collects',
  'IsTranslationOf',
  'HasTranslation',
] as const;
export type RelationshipType = (typeof relationshipTypes)[number];

/** The outgoing links of one asset (stream `asset-relationships-<from>`): duplicates are decided on it. */
export type RelationshipAdded = DomainEvent<
  'RelationshipAdded',
  { readonly id: string; readonly fromAssetId: string; readonly toAssetId: string; readonly relationshipType: RelationshipType }
>;
export type RelationshipRemoved = DomainEvent<'RelationshipRemoved', { readonly id: string; readonly fromAssetId: string }>;
export type RelationshipEvent = RelationshipAdded | RelationshipRemoved;
export const relationshipEventTypes = ['RelationshipAdded', 'RelationshipRemoved'] as const satisfies readonly RelationshipEvent['type'][];
