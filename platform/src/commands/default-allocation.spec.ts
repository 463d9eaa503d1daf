import { describe, expect, it } from 'vitest';
import { defaultAllocationId } from './default-allocation.ts';
import { userRootCollectionId } from './user-root.ts';

const userId = '0190A8E0-0000-7000-8000-000000000001';

describe('ids derived from a user', () => {
  it("keeps the root collection's id as it was before the derivation was shared", () => {
    // The value the former inline derivation gave: roots already stored must still be found.
    expect(userRootCollectionId(userId)).toBe('17b5e64f-81f4-50f2-a1d8-5b4c42dd6661');
  });

  it('gives each user one default allocation id, apart from the root collection and from other users', () => {
    const id = defaultAllocationId(userId);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(defaultAllocationId(userId.toLowerCase())).toBe(id);
    expect(id).not.toBe(userRootCollectionId(userId));
    expect(defaultAllocationId('0190a8e0-0000-7000-8000-000000000002')).not.toBe(id);
  });
});
