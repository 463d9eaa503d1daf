import { sql, type RawBuilder } from 'kysely';

/** Who looks at permission entries: a signed-in user, or nobody (null) for an anonymous read. */
export type SubjectViewer = { readonly userId: string | null; readonly isSystemAdmin: boolean };

/**
 * Whether the viewer may see the subject named by `type` and `id` (two SQL expressions), by
 * the rules of the subject's own read routes (DECISIONS.md 2, docs/assets.md "Disclosure"):
 * - a group: system administrators, and members of its organization (GET /api/groups/{id}/);
 * - an organization: system administrators, and its members (GET /api/organizations/{id}/);
 * - a project: system administrators, its members, and the admins of its organization
 *   (GET /api/projects/{id}/);
 * - a user: anyone, once they hold its id: sharing needs to name users one cannot list
 *   (docs/assets.md says what that discloses).
 * A subject that does not exist is not seen; so is one of an unknown type.
 */
export function subjectSeen(type: RawBuilder<unknown>, id: RawBuilder<unknown>, viewer: SubjectViewer): RawBuilder<boolean> {
  const admin = sql`${viewer.isSystemAdmin}::boolean`;
  const me = sql`${viewer.userId}::uuid`;
  const memberOf = (organization: RawBuilder<unknown>, role?: string) =>
    sql`exists (select 1 from organization_memberships m where m.organization_id = ${organization} and m.user_id = ${me}${role ? sql` and m.role = ${role}` : sql``})`;
  return sql<boolean>`case ${type}
    when 'user' then exists (select 1 from users x where x.id = ${id})
    when 'group' then exists (select 1 from groups x where x.id = ${id} and (${admin} or ${memberOf(sql`x.organization_id`)}))
    when 'organization' then exists (select 1 from organizations x where x.id = ${id} and (${admin} or ${memberOf(sql`x.id`)}))
    when 'project' then exists (select 1 from projects x where x.id = ${id} and (${admin}
      or exists (select 1 from project_members pm where pm.project_id = x.id and pm.user_id = ${me})
      or ${memberOf(sql`x.organization_id`, 'admin')}))
    else false end`;
}
