import { createApp, openResources, serve, tokensIssue, usersCreate, type Resources } from '@cairn/cli';
import { createLogger, loadConfig } from '@cairn/platform';
import { startProjector, type Projector } from '@cairn/projections';
import type { Express } from 'express';
import { inject } from 'vitest';
import { AnswerRecorder } from './answer-recorder.ts';
import { createTestDatabase } from './database.ts';

export const publicUrl = 'http://cairn.test';

export function testConfig(databaseUrl: string, overrides: Record<string, string> = {}) {
  return loadConfig({
    DATABASE_URL: databaseUrl,
    CAIRN_PUBLIC_URL: publicUrl,
    CAIRN_LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent',
    CAIRN_CONSISTENCY_TIMEOUT_MS: '3000',
    ...overrides,
  });
}

export async function openTestResources(databaseUrl: string, overrides: Record<string, string> = {}): Promise<Resources> {
  return openResources(testConfig(databaseUrl, overrides), { logger: createLogger((process.env['TEST_LOG_LEVEL'] as 'error' | undefined) ?? 'silent'), poolSize: 6 });
}

export type Shape = 'all' | 'split';

/**
 * The service as clients meet it. `all`: one app serving both sides; `split`: a command
 * app and a query app on their own resources (separate pools, as separate processes
 * would have), with the projector beside them.
 */
export type Harness = {
  readonly databaseUrl: string;
  readonly resources: Resources;
  readonly commandApp: Express;
  readonly queryApp: Express;
  /** The query app's resources (in `all`, the same as `resources`): its metrics, through createOpsApp. */
  readonly queryResources: Resources;
  createUser(options?: { admin?: boolean; email?: string; scopes?: string }): Promise<{ id: string; token: string; email: string }>;
  close(): Promise<void>;
};

let counter = 0;

/** This test file's answers, for the OpenAPI drift check (docs/api-docs.md). */
export const answers = new AnswerRecorder(inject('answersDirectory'));

export async function startHarness(shape: Shape = 'all', overrides: Record<string, string> = {}): Promise<Harness> {
  const databaseUrl = await createTestDatabase();
  const resources = await openTestResources(databaseUrl, overrides);
  const extra: Resources[] = [];
  let projector: Projector;
  let commandApp: Express;
  let queryApp: Express;
  let queryResources = resources;
  if (shape === 'all') {
    projector = await startProjector({ db: resources.db, eventStore: resources.eventStore, projections: resources.projections.async, inline: resources.projections.inline, logger: resources.logger, databaseUrl });
    commandApp = queryApp = answers.wrap(createApp(resources, 'all'));
  } else {
    queryResources = await openTestResources(databaseUrl, overrides);
    const projectorResources = await openTestResources(databaseUrl, overrides);
    extra.push(queryResources, projectorResources);
    projector = await startProjector({ db: projectorResources.db, eventStore: projectorResources.eventStore, projections: projectorResources.projections.async, inline: projectorResources.projections.inline, logger: projectorResources.logger, databaseUrl });
    commandApp = answers.wrap(createApp(resources, 'command'));
    queryApp = answers.wrap(createApp(queryResources, 'query'));
  }

  return {
    databaseUrl,
    resources,
    commandApp,
    queryApp,
    queryResources,
    async createUser(options = {}) {
      counter += 1;
      const email = options.email ?? `user${counter}-${Date.now()}@example.org`;
      const args = ['--email', email, '--name', `User ${counter}`, ...(options.admin ? ['--system-admin'] : [])];
      const { id } = await usersCreate(resources, args);
      const token = await tokensIssue(resources, ['--user', id, '--scopes', options.scopes ?? 'read write']);
      return { id, email, token: token.access_token };
    },
    async close() {
      answers.flush();
      await projector.stop();
      for (const r of extra) await r.close();
      await resources.close();
    },
  };
}

export { serve };
