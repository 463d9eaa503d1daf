import { conflict, forbidden, invalid, notFound } from '../shared/errors.ts';

export const groupErrors = {
  notFound: () => notFound('not_found', 'Group not found.'),
  memberNotFound: () => notFound('not_found', 'The user is not a member of this group.'),
  alreadyExists: () => conflict('already_exists', 'A group with this id already exists.'),
  // Answered over HTTP as 400 `validation_error` on `organization_id` (command-api/src/groups/group-access.ts).
  unknownOrganization: () => invalid('unknown_organization', 'No such organization.'),
  adminOnly: () => forbidden('permission_denied', 'Only an administrator of the organization or a system administrator may change its groups.'),
  membersGroupManaged: () => conflict('members_group_managed', "An organization's members group follows its membership: its members cannot be changed by hand, nor can it be deleted."),
  invalidName: (max: number) => invalid('invalid_name', `The name must be 1 to ${max} characters.`),
  invalidDescription: (max: number) => invalid('invalid_description', `The description must be at most ${max} characters.`),
  // Answered over HTTP as 400 `validation_error` on `user_id`, like an unknown user.
  notOrganizationMember: () => invalid('not_organization_member', 'The user is not a member of the group\'s organization.'),
  alreadyMember: () => conflict('already_member', 'The user is already a member of this group.'),
};
