import { describe, expect, it } from 'vitest';
import { operatorActor } from '../shared/command-context.ts';
import { givenFor } from '../shared/decider-spec.ts';
import type { WebhookId } from '../shared/ids.ts';
import { webhookDecider } from './decide.ts';
import type { WebhookEvent } from './events.ts';

const id = '3f1c2d9e-1111-4000-8000-0000000000aa' as WebhookId;
const now = '2026-01-01T00:00:00.000Z';
const owner = { actor: { userId: 'owner', isSystemAdmin: false }, now };
const stranger = { actor: { userId: 'stranger', isSystemAdmin: false }, now };
const admin = { actor: { userId: 'admin', isSystemAdmin: true }, now };
const filters = { collectionId: null, assetId: null, kinds: [] };
const created: WebhookEvent = { type: 'WebhookCreated', data: { id, ownerId: 'owner', url: 'https://hooks.example.org/a', filters, sealedSecret: 's', startAfter: '0.0' } };
const paused: WebhookEvent = { type: 'WebhookPaused', data: { id, reason: 'HTTP 500' } };

const given = givenFor(webhookDecider, owner);

describe('webhook decider', () => {
  it('makes the creator the owner', () => {
    const result = given([]).when({ type: 'CreateWebhook', id, url: 'https://hooks.example.org/a', filters, sealedSecret: 's', startAfter: '0.0' });
    expect(result).toEqual({ events: [created], code: null });
  });

  it('refuses the operator as an owner, and a second creation', () => {
    expect(given([]).when({ type: 'CreateWebhook', id, url: 'https://x.example', filters, sealedSecret: 's', startAfter: '0.0' }, { actor: operatorActor, now }).code).toBe('permission_denied');
    expect(given([created]).when({ type: 'CreateWebhook', id, url: 'https://x.example', filters, sealedSecret: 's', startAfter: '0.0' }).code).toBe('already_exists');
  });

  it('hides a subscription from everyone but its owner and system administrators', () => {
    expect(given([created]).when({ type: 'DeleteWebhook', id }, stranger).code).toBe('not_found');
    expect(given([created]).when({ type: 'DeleteWebhook', id }, admin).events).toEqual([{ type: 'WebhookDeleted', data: { id } }]);
  });

  it('records only what changes, and pauses or resumes on the status', () => {
    expect(given([created]).when({ type: 'ChangeWebhook', id, url: 'https://hooks.example.org/a' }).events).toEqual([]);
    expect(given([created]).when({ type: 'ChangeWebhook', id, url: 'https://hooks.example.org/b', status: 'paused' }).events).toEqual([
      { type: 'WebhookChanged', data: { id, changes: { url: 'https://hooks.example.org/b' } } },
      { type: 'WebhookPaused', data: { id, reason: 'Paused by its owner.' } },
    ]);
    expect(given([created, paused]).when({ type: 'ChangeWebhook', id, status: 'active' }).events).toEqual([{ type: 'WebhookResumed', data: { id } }]);
  });

  it('lets the deliverer pause an active subscription once', () => {
    const pause = { type: 'PauseWebhook' as const, id, reason: 'HTTP 500' };
    expect(given([created]).when(pause, { actor: operatorActor, now }).events).toEqual([paused]);
    expect(given([created, paused]).when(pause, { actor: operatorActor, now }).events).toEqual([]);
  });

  it('treats a deleted subscription as not found', () => {
    const deleted: WebhookEvent = { type: 'WebhookDeleted', data: { id } };
    expect(given([created, deleted]).when({ type: 'ChangeWebhook', id, status: 'active' }).code).toBe('not_found');
    expect(given([created, deleted]).when({ type: 'ReplayWebhookDelivery', id, deliveryId: 'd', replayId: 'r' }).code).toBe('not_found');
  });
});
