import { describe, expect, it } from 'vitest';
import { givenFor } from '../shared/decider-spec.ts';
import type { AllocationEvent } from './allocation.ts';
import { defaultAllocationGrantDecider, type GrantDefaultAllocation } from './default-allocation.ts';

const operator = { actor: { userId: null, isSystemAdmin: true }, now: '2026-01-01T00:00:00.000Z' };
const given = givenFor(defaultAllocationGrantDecider, operator);
const grant: GrantDefaultAllocation = { type: 'GrantDefaultAllocation', id: 'a1', userId: 'u1', repositoryId: 'r1', limitBytes: 1000 };
const created: AllocationEvent = { type: 'AllocationCreated', data: { id: 'a1', repositoryId: 'r1', ownerType: 'user', ownerId: 'u1', limitBytes: 1000 } };

describe('the default allocation grant', () => {
  it("creates the user's allocation on a stream that has none", () => {
    expect(given([]).when(grant)).toEqual({ events: [created], code: null });
  });

  it('grants once ever: again, or after the allocation was deleted, nothing', () => {
    expect(given([created]).when(grant)).toEqual({ events: [], code: null });
    const deleted: AllocationEvent = { type: 'AllocationDeleted', data: { id: 'a1', ownerType: 'user', ownerId: 'u1' } };
    expect(given([created, deleted]).when(grant)).toEqual({ events: [], code: null });
  });

  it('is granted by the service only, and never with no room or past the largest limit', () => {
    expect(given([]).when(grant, { actor: { userId: 'u1', isSystemAdmin: false }, now: operator.now }).code).toBe('permission_denied');
    expect(given([]).when({ ...grant, limitBytes: 0 }).code).toBe('invalid_limit_bytes');
    expect(given([]).when({ ...grant, limitBytes: 2 ** 51 }).code).toBe('invalid_limit_bytes');
  });
});
