import { describe, expect, it } from 'vitest';
import { membersGroupId, membersGroupName, uuidV5 } from './members-group.ts';

describe('members group identity', () => {
  it('computes RFC 9562 version 5 UUIDs', () => {
    // The RFC's own example: the DNS namespace and "www.example.com".
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('derives one id per organization, whatever the case of the given id', () => {
    const id = membersGroupId('0f5b2f4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(membersGroupId('0F5B2F4E-1C2D-4E5F-8A9B-0C1D2E3F4A5B')).toBe(id);
    expect(membersGroupId('0f5b2f4e-1c2d-4e5f-8a9b-0c1d2e3f4a5c')).not.toBe(id);
  });

  it('names the group after the organization within 255 characters', () => {
    expect(membersGroupName('Acme')).toBe('Acme members');
    const long = membersGroupName('é'.repeat(300));
    expect(long).toHaveLength(255);
    expect(long.endsWith(' members')).toBe(true);
    // An astral character is two code units; it is dropped whole rather than split.
    const astral = membersGroupName(`${'a'.repeat(246)}😀`);
    expect(astral).toBe(`${'a'.repeat(246)} members`);
  });
});
