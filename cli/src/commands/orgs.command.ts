import { randomUUID } from 'node:crypto';
import { isUuid, organizations, type OrganizationId, type UserId } from '@cairn/domain';
import { executeCommand } from '@cairn/platform';
import type { Resources } from '../runtime/resources.ts';
import { parseOptions, requireOption, UsageError } from './args.ts';
import { catchUpReadModels, operatorContext, operatorMetadata, resolveUserId } from './operator.ts';

/** `cairn orgs create --name N [--country CC]` */
export async function orgsCreate(resources: Resources, args: readonly string[]) {
  const { values } = parseOptions(args, { name: { type: 'string' }, country: { type: 'string' } });
  const id = randomUUID() as OrganizationId;
  const country = typeof values.country === 'string' ? values.country.trim().toUpperCase() : null;
  await executeCommand(
    resources.eventStore,
    organizations.organizationDecider,
    organizations.organizationStream(id),
    { type: 'CreateOrganization', id, name: requireOption(values.name, 'name'), country },
    operatorContext(),
    operatorMetadata('orgs create'),
  );
  await catchUpReadModels(resources);
  return { id };
}

/** `cairn orgs add-member --org ORG_ID --user USER_ID_OR_EMAIL [--role admin|member]` */
export async function orgsAddMember(resources: Resources, args: readonly string[]) {
  const { values } = parseOptions(args, { org: { type: 'string' }, user: { type: 'string' }, role: { type: 'string' } });
  const organizationId = requireOption(values.org, 'org').toLowerCase();
  if (!isUuid(organizationId)) throw new UsageError('--org must be an organization id');
  const role = typeof values.role === 'string' ? values.role : 'member';
  if (role !== 'admin' && role !== 'member') throw new UsageError('--role must be admin or member');
  const userId = (await resolveUserId(resources, requireOption(values.user, 'user'))) as UserId;
  await executeCommand(
    resources.eventStore,
    organizations.organizationDecider,
    organizations.organizationStream(organizationId),
    { type: 'AddOrganizationMember', organizationId: organizationId as OrganizationId, userId, role },
    operatorContext(),
    operatorMetadata('orgs add-member'),
  );
  await catchUpReadModels(resources);
  return { organization_id: organizationId, user_id: userId, role };
}
