import type { CommandContext } from '../shared/command-context.ts';
import { assertNever, type Decider } from '../shared/decider.ts';
import type { DomainEvent } from '../shared/events.ts';
import { conflict, forbidden, invalid } from '../shared/errors.ts';

/**
 * A storage repository: a named place for content bytes (docs/storage.md). Its event holds
 * where it is, never credentials: those come from the deployment's configuration.
 */
export type RepositoryConfig =
  | { readonly kind: 'fs'; readonly path: string }
  | { readonly kind: 's3'; readonly endpoint: string; readonly bucket: string; readonly prefix: string; readonly region: string };

export type RepositoryCreated = DomainEvent<'RepositoryCreated', { readonly id: string; readonly name: string; readonly config: RepositoryConfig }>;
export type RepositoryEvent = RepositoryCreated;
export const repositoryEventTypes = ['RepositoryCreated'] as const satisfies readonly RepositoryEvent['type'][];

export type CreateRepository = { readonly type: 'CreateRepository'; readonly id: string; readonly name: string; readonly config: RepositoryConfig };
export type RepositoryState = { readonly exists: boolean };

export const repositoryLimits = { name: 100, path: 4096, bucket: 63, prefix: 512 } as const;
const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const bucketPattern = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export const repositoryErrors = {
  operatorOnly: () => forbidden('permission_denied', 'Only a system administrator or an operator may create repositories.'),
  exists: () => conflict('already_exists', 'This repository exists already.'),
  invalidName: () => invalid('invalid_name', `A repository name is 1 to ${repositoryLimits.name} letters, digits, dots, dashes or underscores, starting with a letter or digit.`),
  invalidPath: () => invalid('invalid_path', 'An fs repository needs an absolute directory path.'),
  invalidEndpoint: () => invalid('invalid_endpoint', 'An s3 repository needs an http:// or https:// endpoint URL.'),
  invalidBucket: () => invalid('invalid_bucket', 'An S3 bucket name is 3 to 63 lowercase letters, digits, dots or dashes.'),
  invalidPrefix: () => invalid('invalid_prefix', 'A prefix is a relative path without empty, `.` or `..` parts.'),
};

function checkConfig(config: RepositoryConfig): RepositoryConfig {
  if (config.kind === 'fs') {
    if (!config.path.startsWith('/') || config.path.length > repositoryLimits.path || config.path.includes('\0')) throw repositoryErrors.invalidPath();
    return config;
  }
  if (!/^https?:\/\/[^\s/]+/.test(config.endpoint)) throw repositoryErrors.invalidEndpoint();
  if (!bucketPattern.test(config.bucket)) throw repositoryErrors.invalidBucket();
  const prefix = config.prefix.replace(/^\/+|\/+$/g, '');
  if (prefix.length > repositoryLimits.prefix || (prefix !== '' && prefix.split('/').some((p) => p === '' || p === '.' || p === '..'))) throw repositoryErrors.invalidPrefix();
  return { ...config, prefix };
}

export function decideRepository(command: CreateRepository, state: RepositoryState, context: CommandContext): readonly RepositoryEvent[] {
  // Operators run `cairn repositories create` (a system actor) or are system administrators.
  if (context.actor.userId !== null && !context.actor.isSystemAdmin) throw repositoryErrors.operatorOnly();
  switch (command.type) {
    case 'CreateRepository': {
      if (state.exists) throw repositoryErrors.exists();
      if (command.name.length > repositoryLimits.name || !namePattern.test(command.name)) throw repositoryErrors.invalidName();
      return [{ type: 'RepositoryCreated', data: { id: command.id, name: command.name, config: checkConfig(command.config) } }];
    }
    default:
      return assertNever(command.type);
  }
}

export const repositoryDecider: Decider<CreateRepository, RepositoryEvent, RepositoryState> = {
  initialState: { exists: false },
  evolve: () => ({ exists: true }),
  decide: decideRepository,
};

export const repositoryStream = (id: string) => `repository-${id}`;
