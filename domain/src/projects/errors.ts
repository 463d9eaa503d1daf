import { conflict, forbidden, invalid, notFound } from '../shared/errors.ts';

export const projectErrors = {
  notFound: () => notFound('not_found', 'Project not found.'),
  alreadyExists: () => conflict('already_exists', 'A project with this id already exists.'),
  notOrganizationMember: () => forbidden('permission_denied', 'Only members of the organization may create a project in it.'),
  cannotManage: () => forbidden('permission_denied', 'Only project admins, admins of its organization and system administrators may manage this project.'),
  ownerRequired: () => invalid('owner_required', 'A project is created by a user, who becomes its owner.'),
  invalidName: () => invalid('invalid_name', 'The name must be 1 to 255 characters.'),
  invalidCountry: () => invalid('invalid_country', 'Country codes are two capital letters.'),
  invalidBasis: () => invalid('invalid_basis', 'The geographic basis is not one of ip, affiliation, ip_or_affiliation, ip_and_affiliation.'),
  invalidRole: () => invalid('invalid_role', 'The role is not one of admin, member, viewer.'),
  alreadyMember: () => conflict('already_member', 'The user is already a member of this project.'),
  memberNotFound: () => notFound('not_found', 'The user is not a member of this project.'),
  lastAdmin: () => conflict('last_project_admin', 'A project keeps at least one admin: promote another member first.'),
};
