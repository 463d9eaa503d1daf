import { createHash } from 'node:crypto';

/** The namespace of members-group ids: fixed forever, or every members group changes id. */
export const membersGroupNamespace = '8fed6fc5-8e09-49b7-a01b-2a1ec0cfc98a';

/** RFC 9562 UUID version 5: SHA-1 of the namespace's 16 bytes and the name's UTF-8 bytes. */
export function uuidV5(name: string, namespace: string): string {
  const bytes = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest()
    .subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The id of an organization's members group, computed rather than stored anywhere, so
 * a rebuild gives the same id and anyone can find the group from the organization id.
 */
export function membersGroupId(organizationId: string): string {
  return uuidV5(organizationId.toLowerCase(), membersGroupNamespace);
}

const maxNameLength = 255;
const suffix = ' members';

/**
 * "<organization name> members", the organization name cut (never inside a character) so
 * that the whole fits the 255 characters of interface section 8, counted as `length` is.
 */
export function membersGroupName(organizationName: string): string {
  let name = '';
  for (const character of organizationName) {
    if (name.length + character.length > maxNameLength - suffix.length) break;
    name += character;
  }
  return `${name}${suffix}`;
}

export const membersGroupDescription = 'Every member of the organization.';
