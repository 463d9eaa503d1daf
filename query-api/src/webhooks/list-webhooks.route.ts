import { listWebhooks } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { listWebhooks as readWebhooks, presentWebhook } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

export const listWebhooksRoute = (deps: QueryDeps) =>
  implement(listWebhooks, async ({ context }) => {
    if (!context.caller) throw httpErrors.unauthenticated();
    return { status: 200, body: (await readWebhooks(deps.db, context.caller)).map(presentWebhook) };
  });
