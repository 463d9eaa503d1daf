import { randomUUID } from 'node:crypto';
import { Command, Option } from '@commander-js/extra-typings';
import type { storage } from '@cairn/domain';
import { defineCommand, examples, nonEmpty } from '../program/define-command.ts';
import type { Resources } from '../runtime/resources.ts';
import { UsageError } from './args.ts';
import { parseSize } from './sizes.ts';

/** What these commands run on, loaded when one runs: `cairn --help` loads none of it. */
const load = async () => ({ ...(await import('@cairn/domain')), ...(await import('@cairn/platform')), ...(await import('@cairn/projections')), ...(await import('./operator.ts')) });


/** The operator sees and manages every allocation, as a system administrator does. */
const operatorViewer = { userId: '00000000-0000-0000-0000-000000000000', isSystemAdmin: true };
const operatorAuthority: storage.AllocationAuthority = { manages: true, choosesDefault: true };

/** The domain's allocation owner types (storage.allocationOwnerTypes), written here so that building the help loads no domain code; the type keeps both the same. */
const ownerTypes = ['user', 'project', 'organization'] as const satisfies readonly storage.AllocationOwnerType[];
const everyOwnerType: Exclude<storage.AllocationOwnerType, (typeof ownerTypes)[number]> extends never ? true : never = true;
void everyOwnerType;

const ownerTypeOption = () => new Option('--owner-type <type>', 'what the owner is').choices(ownerTypes).default('user' as const);

async function ownerOf(resources: Resources, ownerType: storage.AllocationOwnerType, owner: string): Promise<storage.AllocationOwner> {
  const { allocationOwnerStanding, isUuid, resolveUserId } = await load();
  if (ownerType === 'user') return { ownerType, ownerId: await resolveUserId(resources, owner) };
  if (!isUuid(owner)) throw new UsageError(`--owner must be the ${ownerType}'s id`);
  const standing = await allocationOwnerStanding(resources.db, { ownerType, ownerId: owner.toLowerCase() }, operatorViewer);
  if (!standing.exists) throw new UsageError(`no ${ownerType} with id ${owner}`);
  return { ownerType, ownerId: owner.toLowerCase() };
}

/** A repository by name or id; without one, the only repository there is. */
async function repositoryOf(resources: Resources, named: string | undefined): Promise<string> {
  const { findRepository, findRepositoryByName, isUuid, listRepositories } = await load();
  if (named === undefined) {
    const all = await listRepositories(resources.db);
    if (all.length === 1 && all[0]) return all[0].id;
    throw new UsageError(`--repository is required when there is not exactly one repository (there are ${all.length}; see cairn repositories list)`);
  }
  const found = isUuid(named) ? await findRepository(resources.db, named.toLowerCase()) : await findRepositoryByName(resources.db, named);
  if (!found) throw new UsageError(`no repository ${named}; see cairn repositories list`);
  return found.id;
}

async function presented(resources: Resources, id: string) {
  const { catchUpReadModels, findAllocationRow, presentAllocation } = await load();
  await catchUpReadModels(resources);
  const row = await findAllocationRow(resources.db, id);
  if (!row) throw new Error(`the allocation ${id} is not in the read model yet; see cairn projections status`);
  return presentAllocation(row);
}

async function chooseDefault(resources: Resources, allocationId: string, owner: storage.AllocationOwner): Promise<void> {
  const { executeCommand, operatorContext, operatorMetadata, storage } = await load();
  await executeCommand(
    resources.eventStore,
    storage.allocationOwnerDecider,
    storage.allocationOwnerStream(owner),
    { type: 'ChooseDefaultAllocation', allocationId, authority: operatorAuthority, ...owner },
    operatorContext(),
    operatorMetadata('allocations default'),
  );
}

/** `cairn allocations create --owner O [--owner-type T] [--repository R] --limit SIZE [--default]` (interface 4.2) */
export const allocationsCreateCommand = defineCommand(
  () =>
    new Command('create')
      .summary('grant storage on a repository to a user, project or organization; prints the allocation')
      .description(
        'Grants an owner storage on a repository, up to a limit, as POST /api/allocations/ does; recorded in the audit log. Content an owner stores is charged to its default allocation (or its oldest). Prints the allocation.',
      )
      .requiredOption('--owner <owner>', 'the owner: a user id or e-mail address, or the id of a project or organization (required)', nonEmpty)
      .addOption(ownerTypeOption())
      .option('--repository <repository>', 'the repository, by name or id (default: the only repository, when there is one)')
      .requiredOption('--limit <size>', 'the limit: bytes, or with a unit: 500MB, 10GiB, 2TB (required)', parseSize)
      .option('--default', "also make it the owner's default allocation", false)
      .addHelpText('after', examples('cairn allocations create --owner ada@example.org --limit 10GiB --default', 'cairn allocations create --owner-type project --owner 0190e0c4-5b7a-7cc2-9a51-3f1f0f3e9b10 --repository archive --limit 2TB')),
  async (resources: Resources, { options }) => {
    const { executeCommand, operatorContext, operatorMetadata, storage } = await load();
    const owner = await ownerOf(resources, options.ownerType, options.owner);
    const repositoryId = await repositoryOf(resources, options.repository);
    const id = randomUUID();
    await executeCommand(
      resources.eventStore,
      { initialState: null, evolve: () => null, decide: storage.decideAllocation },
      storage.allocationStream(id),
      { type: 'CreateAllocation', id, repositoryId, limitBytes: options.limit, authority: operatorAuthority, ...owner },
      operatorContext(),
      operatorMetadata('allocations create'),
      { newStream: true },
    );
    if (options.default) await chooseDefault(resources, id, owner);
    return presented(resources, id);
  },
);

/** `cairn allocations list [--owner O] [--owner-type T] [--organization ID] [--repository R]` */
export const allocationsListCommand = defineCommand(
  () =>
    new Command('list')
      .summary('list allocations with their usage; prints {"allocations"}')
      .description('Lists allocations with their limit, usage and whether each is its owner\'s default. Prints {"allocations": [...]}.')
      .option('--owner <owner>', 'only those of this owner: a user id or e-mail address, or a project or organization id')
      .addOption(ownerTypeOption())
      .option('--organization <id>', "only those of an organization's members, projects and itself")
      .option('--repository <repository>', 'only those on this repository, by name or id')
      .addHelpText('after', examples('cairn allocations list', 'cairn allocations list --owner ada@example.org')),
  async (resources: Resources, { options }) => {
    const { isUuid, listAllocations, presentAllocation } = await load();
    const owner = options.owner !== undefined ? await ownerOf(resources, options.ownerType, options.owner) : undefined;
    if (options.organization !== undefined && !isUuid(options.organization)) throw new UsageError('--organization must be an organization id');
    const rows = await listAllocations(
      resources.db,
      {
        ownerId: owner?.ownerId,
        ownerType: owner?.ownerType,
        organizationId: options.organization?.toLowerCase(),
        repositoryId: options.repository !== undefined ? await repositoryOf(resources, options.repository) : undefined,
      },
      operatorViewer,
    );
    return { allocations: rows.map(presentAllocation) };
  },
);

/** `cairn allocations default ALLOCATION_ID`: the owner's content is charged to it from now on. */
export const allocationsDefaultCommand = defineCommand(
  () =>
    new Command('default')
      .summary("make an allocation its owner's default; prints the allocation")
      .description("Makes an allocation its owner's default, as POST /api/allocations/{id}/default/ does: new content of the owner is charged to it. Prints the allocation.")
      .argument('<allocation-id>', 'the allocation (see cairn allocations list)')
      .addHelpText('after', examples('cairn allocations default 0190e0c4-5b7a-7cc2-9a51-3f1f0f3e9b10')),
  async (resources: Resources, { args: [allocationId] }) => {
    const { findAllocationRow, isUuid } = await load();
    const row = isUuid(allocationId) ? await findAllocationRow(resources.db, allocationId.toLowerCase()) : undefined;
    if (!row) throw new UsageError(`no allocation ${allocationId}; see cairn allocations list`);
    await chooseDefault(resources, row.id, { ownerType: row.owner_type as storage.AllocationOwnerType, ownerId: row.owner_id });
    return presented(resources, row.id);
  },
);

export const allocationsCreate = allocationsCreateCommand.inProcess;
export const allocationsList = allocationsListCommand.inProcess;
export const allocationsDefault = allocationsDefaultCommand.inProcess;
