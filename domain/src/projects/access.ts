import { allPermissionBits, permissionBits } from '../shared/permissions.ts';
import type { ProjectRole } from './events.ts';

const b = permissionBits;

/** The flags a project role gives on the project and what it owns (docs/projects.md). */
export const roleFlags: Readonly<Record<ProjectRole, number>> = {
  admin: allPermissionBits,
  member: b.READ_METADATA | b.WRITE_METADATA | b.READ_CONTENT | b.WRITE_CONTENT | b.READ_NOTES | b.WRITE_NOTES | b.LIST,
  viewer: b.READ_METADATA | b.READ_CONTENT | b.READ_NOTES | b.LIST,
};

export type AccessScope = 'direct' | 'organization' | 'admin';

export type ProjectViewer = {
  readonly isSystemAdmin: boolean;
  /** The caller's role in the project, or null. */
  readonly memberRole: ProjectRole | null;
  /** The caller's role in the project's organization, or null. */
  readonly organizationRole: string | null;
};

export type ProjectAccess = {
  readonly visible: boolean;
  readonly canManage: boolean;
  readonly accessScope: AccessScope | null;
  readonly effectiveFlags: number;
};

/**
 * Who sees and who manages a project: its members see it (`direct`), admins of its
 * organization see and manage it (`organization`), system administrators see and manage
 * every project (`admin`). The most direct reason wins for `access_scope`; flags are the
 * OR of every reason.
 */
export function projectAccess(viewer: ProjectViewer): ProjectAccess {
  const organizationAdmin = viewer.organizationRole === 'admin';
  let flags = viewer.memberRole ? roleFlags[viewer.memberRole] : 0;
  if (organizationAdmin || viewer.isSystemAdmin) flags |= allPermissionBits;
  const accessScope: AccessScope | null = viewer.memberRole ? 'direct' : organizationAdmin ? 'organization' : viewer.isSystemAdmin ? 'admin' : null;
  return {
    visible: accessScope !== null,
    canManage: viewer.memberRole === 'admin' || organizationAdmin || viewer.isSystemAdmin,
    accessScope,
    effectiveFlags: flags,
  };
}
