import type { Express } from 'express';
import type pg from 'pg';
import type { CaseOptions } from './cases.ts';
import { Client } from './client.ts';
import { Fuzzer, type FuzzOptions } from './engine.ts';
import { operationsOf, type OpenApiDocument, type Operation } from './operations.ts';
import type { SchemaContext } from './schema-arbitrary.ts';
import { World, type Caller, type Callers } from './world.ts';

export type FuzzSetup = {
  readonly client: Client;
  readonly world: World;
  readonly fuzzer: Fuzzer;
  readonly operations: readonly Operation[];
  readonly ctx: SchemaContext;
};

/** The same set-up for the test and the long run: the served document, the world, the fuzzer. */
export async function setUpFuzzing(app: Express, pool: pg.Pool, callers: Callers, newUser: () => Promise<Caller>, options: FuzzOptions): Promise<FuzzSetup> {
  const client = await Client.start(app);
  const schema = await client.send({ method: 'GET', path: '/api/schema/', headers: {} });
  if (schema.status !== 200) throw new Error(`GET /api/schema/ answered ${schema.status}`);
  const doc = JSON.parse(schema.body.toString('utf8')) as OpenApiDocument;
  const operations = operationsOf(doc);
  const world = new World(client, callers, newUser);
  await world.build();
  const fuzzer = new Fuzzer(client, world, pool, operations, options);
  return { client, world, fuzzer, operations, ctx: { components: doc.components.schemas } };
}

export const defaultCaseOptions: CaseOptions = { forgedTokensPerMille: 10 };

/** A seed per operation, so that each operation's run can be replayed on its own. */
export function seedFor(base: number, operationId: string): number {
  let hash = base | 0;
  for (const ch of operationId) hash = (Math.imul(hash, 31) + ch.charCodeAt(0)) | 0;
  return hash;
}
