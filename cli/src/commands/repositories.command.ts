import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { storage } from '@cairn/domain';
import { executeCommand } from '@cairn/platform';
import { findRepositoryByName, listRepositories } from '@cairn/projections';
import type { Resources } from '../runtime/resources.ts';
import { parseOptions, requireOption, UsageError } from './args.ts';
import { catchUpReadModels, operatorContext, operatorMetadata } from './operator.ts';

/**
 * `cairn repositories create --name N --kind fs --path DIR` or
 * `--kind s3 --endpoint URL --bucket B [--prefix P] [--region R]` (DECISIONS.md 7).
 * Credentials of s3 repositories come from the configuration (docs/storage.md).
 */
export async function repositoriesCreate(resources: Resources, args: readonly string[]) {
  const { values } = parseOptions(args, {
    name: { type: 'string' },
    kind: { type: 'string' },
    path: { type: 'string' },
    endpoint: { type: 'string' },
    bucket: { type: 'string' },
    prefix: { type: 'string' },
    region: { type: 'string' },
  });
  const name = requireOption(values.name, 'name');
  const kind = requireOption(values.kind, 'kind');
  let config: storage.RepositoryConfig;
  if (kind === 'fs') config = { kind, path: path.resolve(requireOption(values.path, 'path')) };
  else if (kind === 's3') {
    config = {
      kind,
      endpoint: requireOption(values.endpoint, 'endpoint'),
      bucket: requireOption(values.bucket, 'bucket'),
      prefix: typeof values.prefix === 'string' ? values.prefix : '',
      region: typeof values.region === 'string' ? values.region : 'us-east-1',
    };
  } else throw new UsageError('--kind must be fs or s3');
  return createRepository(resources, name, config);
}

/** `cairn repositories list` */
export async function repositoriesList(resources: Resources) {
  const rows = await listRepositories(resources.db);
  return { repositories: rows.map((r) => ({ id: r.id, name: r.name, kind: r.kind, config: r.config })) };
}

export async function createRepository(resources: Resources, name: string, config: storage.RepositoryConfig): Promise<{ id: string }> {
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
  if ((await listRepositories(resources.db)).length > 0) return;
  await createRepository(resources, 'local', { kind: 'fs', path: path.join(resources.config.dataDir, 'content') }).catch(async (error: unknown) => {
    // Another process starting at the same time made it first (the name is unique).
    if ((await listRepositories(resources.db)).length === 0) throw error;
  });
}
