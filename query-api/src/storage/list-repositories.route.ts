import { listRepositories } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { listRepositories as readRepositories, presentRepository } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

export const listRepositoriesRoute = (deps: QueryDeps) =>
  implement(listRepositories, async () => ({ status: 200, body: (await readRepositories(deps.db)).map(presentRepository) }));
