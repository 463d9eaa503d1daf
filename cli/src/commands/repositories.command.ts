import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Command } from '@commander-js/extra-typings';
import type { storage } from '@cairn/domain';
import { defineCommand, examples, nonEmpty } from '../program/define-command.ts';
import type { Resources } from '../runtime/resources.ts';
import { requireOption, UsageError } from './args.ts';

/** What these commands run on, loaded when one runs: `cairn --help` loads none of it. */
const load = async () => ({ ...(await import('@cairn/domain')), ...(await import('@cairn/platform')), ...(await import('@cairn/projections')), ...(await import('./operator.ts')) });


/**
 * `cairn repositories create --name N --kind fs --path DIR` or
 * `--kind s3 --endpoint URL --bucket B [--prefix P] [--region R]` (DECISIONS.md 7).
 * Credentials of s3 repositories come from the configuration (docs/storage.md).
 */
export const repositoriesCreateCommand = defineCommand(
  () =>
    new Command('create')
      .summary('add a storage repository; prints {"id"}')
      .description('Adds a repository that content can be stored in: a directory (fs) or an S3 bucket (s3; its credentials come from the configuration, see docs/storage.md). Prints {"id": ...}.')
      .requiredOption('--name <name>', 'the repository name (required; unique)', nonEmpty)
      .requiredOption('--kind <kind>', 'fs or s3 (required)', nonEmpty)
      .option('--path <dir>', 'fs: the directory (required for fs; made if missing)')
      .option('--endpoint <url>', 's3: the endpoint URL (required for s3)')
      .option('--bucket <name>', 's3: the bucket (required for s3)')
      .option('--prefix <prefix>', 's3: a key prefix inside the bucket (default: none)')
      .option('--region <region>', 's3: the region', 'us-east-1')
      .addHelpText('after', examples('cairn repositories create --name archive --kind fs --path /srv/cairn/archive', 'cairn repositories create --name lake --kind s3 --endpoint https://s3.example.org --bucket cairn --prefix prod/')),
  async (resources: Resources, { options }) => {
    let config: storage.RepositoryConfig;
    if (options.kind === 'fs') config = { kind: 'fs', path: path.resolve(requireOption(options.path, 'path')) };
    else if (options.kind === 's3') {
      config = { kind: 's3', endpoint: requireOption(options.endpoint, 'endpoint'), bucket: requireOption(options.bucket, 'bucket'), prefix: options.prefix ?? '', region: options.region };
    } else throw new UsageError('--kind must be fs or s3');
    return createRepository(resources, options.name, config);
  },
);

/** `cairn repositories list` */
export const repositoriesListCommand = defineCommand(
  () =>
    new Command('list')
      .summary('list storage repositories; prints {"repositories"}')
      .description('Lists the repositories with their kind and configuration. Prints {"repositories": [{"id", "name", "kind", "config"}]}.')
      .addHelpText('after', examples('cairn repositories list')),
  async (resources: Resources) => {
    const { listRepositories } = await load();
    const rows = await listRepositories(resources.db);
    return { repositories: rows.map((r) => ({ id: r.id, name: r.name, kind: r.kind, config: r.config })) };
  },
);

export const repositoriesCreate = repositoriesCreateCommand.inProcess;
export async function repositoriesList(resources: Resources) {
  return repositoriesListCommand.inProcess(resources, []);
}

export async function createRepository(resources: Resources, name: string, config: storage.RepositoryConfig): Promise<{ id: string }> {
  const { catchUpReadModels, executeCommand, findRepositoryByName, operatorContext, operatorMetadata, storage } = await load();
  if (await findRepositoryByName(resources.db, name)) throw new UsageError(`a repository named ${name} exists already`);
  const id = randomUUID();
  try {
    await executeCommand(resources.eventStore, storage.repositoryDecider, storage.repositoryStream(id), { type: 'CreateRepository', id, name, config }, operatorContext(), operatorMetadata('repositories create'));
  } catch (error) {
    if (error instanceof Error && 'kind' in error && error.kind === 'invalid') throw new UsageError(error.message);
    throw error;
  }
  await catchUpReadModels(resources);
  return { id };
}

/** The embedded default (docs/storage.md): with no repository at all, `local` under the data directory. */
export async function ensureDefaultRepository(resources: Resources): Promise<void> {
  const { listRepositories } = await load();
  if ((await listRepositories(resources.db)).length > 0) return;
  await createRepository(resources, 'local', { kind: 'fs', path: path.join(resources.config.dataDir, 'content') }).catch(async (error: unknown) => {
    const { listRepositories } = await load();
    // Another process starting at the same time made it first (the name is unique).
    if ((await listRepositories(resources.db)).length === 0) throw error;
  });
}
