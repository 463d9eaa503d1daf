import { randomUUID } from 'node:crypto';
import { Command, Option } from '@commander-js/extra-typings';
import type { OrganizationId, UserId } from '@cairn/domain';
import { defineCommand, examples, nonEmpty } from '../program/define-command.ts';
import type { Resources } from '../runtime/resources.ts';
import { UsageError } from './args.ts';

/** What these commands run on, loaded when one runs: `cairn --help` loads none of it. */
const load = async () => ({ ...(await import('@cairn/domain')), ...(await import('@cairn/platform')), ...(await import('./operator.ts')) });


/** `cairn orgs create --name N [--country CC]` (DECISIONS.md 7) */
export const orgsCreateCommand = defineCommand(
  () =>
    new Command('create')
      .summary('create an organization; prints {"id"}')
      .description('Creates an organization, as POST /api/organizations/ does. Prints {"id": ...}.')
      .requiredOption('--name <name>', 'the organization name (required)', nonEmpty)
      .option('--country <cc>', 'its country, ISO 3166-1 alpha-2 (default: none)')
      .addHelpText('after', examples('cairn orgs create --name "Example University" --country DE')),
  async (resources: Resources, { options }) => {
    const { catchUpReadModels, executeCommand, operatorContext, operatorMetadata, organizations } = await load();
    const id = randomUUID() as OrganizationId;
    const country = options.country !== undefined ? options.country.trim().toUpperCase() : null;
    await executeCommand(
      resources.eventStore,
      organizations.organizationDecider,
      organizations.organizationStream(id),
      { type: 'CreateOrganization', id, name: options.name, country },
      operatorContext(),
      operatorMetadata('orgs create'),
    );
    await catchUpReadModels(resources);
    return { id };
  },
);

/** `cairn orgs add-member --org ORG_ID --user USER_ID_OR_EMAIL [--role admin|member]` (DECISIONS.md 7) */
export const orgsAddMemberCommand = defineCommand(
  () =>
    new Command('add-member')
      .summary('add a user to an organization; prints the membership')
      .description('Adds a user to an organization. Prints {"organization_id", "user_id", "role"}.')
      .requiredOption('--org <id>', 'the organization id (required)', nonEmpty)
      .requiredOption('--user <user>', 'the user: an id or an e-mail address (required)', nonEmpty)
      .addOption(new Option('--role <role>', 'the role in the organization').choices(['admin', 'member'] as const).default('member' as const))
      .addHelpText('after', examples('cairn orgs add-member --org 0190e0c4-... --user ada@example.org --role admin')),
  async (resources: Resources, { options }) => {
    const { catchUpReadModels, executeCommand, isUuid, operatorContext, operatorMetadata, organizations, resolveUserId } = await load();
    const organizationId = options.org.toLowerCase();
    if (!isUuid(organizationId)) throw new UsageError('--org must be an organization id');
    const userId = (await resolveUserId(resources, options.user)) as UserId;
    await executeCommand(
      resources.eventStore,
      organizations.organizationDecider,
      organizations.organizationStream(organizationId),
      { type: 'AddOrganizationMember', organizationId: organizationId as OrganizationId, userId, role: options.role },
      operatorContext(),
      operatorMetadata('orgs add-member'),
    );
    await catchUpReadModels(resources);
    return { organization_id: organizationId, user_id: userId, role: options.role };
  },
);

export const orgsCreate = orgsCreateCommand.inProcess;
export const orgsAddMember = orgsAddMemberCommand.inProcess;
