import { describe, expect, it } from 'vitest';
import { createInlineProjections } from '../runner/inline.ts';
import { assetsProjection } from './assets.projection.ts';

const metadata = { actorId: null, requestId: null, correlationId: 'c', causationId: null, occurredAt: '2026-11-27T00:00:00.000Z' };
const event = (type: string, data: unknown) => ({ id: `${type}-1`, type, schemaVersion: 1, data, metadata, streamId: 'asset-a' });
const asset = '0190f5a2-8a3c-7b4d-9e1f-2a3b4c5d6e7f';
const user = '0190f5a2-8a3c-7b4d-9e1f-2a3b4c5d6e70';

/**
 * A star and a change of an asset's title or alias copy the asset's text onto its stars
 * (migration 0040) with row operations, so an append of either is still planned as
 * statements sent in the append's own round trip: a custom step would leave the plan
 * empty and send the append the slow way (docs/event-store.md).
 */
describe('the assets projection inline', () => {
  const inline = createInlineProjections([assetsProjection]);

  it('plans a star as one statement that takes the asset\'s text', () => {
    const plan = inline.plan([event('AssetStarred', { assetId: asset, userId: user, assetCreatedAt: '2026-01-01T00:00:00.000Z' })]);
    expect(plan).not.toBeNull();
    expect(plan).toHaveLength(1);
    expect(plan?.[0]?.text).toMatch(/^insert into "asset_stars" .* left join "assets" as c on c\."id" = v\."asset_id"/);
  });

  it('plans a retitle with its stars\' new text, after the asset\'s row', () => {
    const plan = inline.plan([event('AssetUpdated', { id: asset, changes: { title: 'Glacier calving' } })]);
    expect(plan).not.toBeNull();
    const texts = plan?.map((s) => s.text) ?? [];
    const assetRow = texts.findIndex((t) => t.startsWith('update "assets"'));
    const stars = texts.findIndex((t) => t.startsWith('update "asset_stars"'));
    expect(assetRow).toBeGreaterThanOrEqual(0);
    expect(stars).toBeGreaterThan(assetRow);
  });
});
