import { fundingAgenciesProjection } from './funding-agencies/funding-agencies.projection.ts';
import { identityProjection } from './identity/identity.projection.ts';
import type { Projection } from './runner/projection.ts';

export const projections: readonly Projection[] = [identityProjection, fundingAgenciesProjection];

export function projectionsHandling(eventTypes: readonly string[]): string[] {
  return projections.filter((p) => eventTypes.some((t) => p.handles.includes(t))).map((p) => p.name);
}

export function findProjection(name: string): Projection | undefined {
  return projections.find((p) => p.name === name);
}
