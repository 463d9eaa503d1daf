/**
 * The long fuzz run: `npm run fuzz -- --requests 100000 [--seed N] [--bound-ms 2000] [--skip REGEX] [--keep-db]`
 * (`--skip`: operation ids to leave out, as a regular expression).
 *
 * Starts the service all-in-one on a fresh database of the test server (TEST_DATABASE_URL,
 * default postgres://postgres@127.0.0.1:5432/postgres), builds the world, then sends the
 * requests round-robin over every operation of the served OpenAPI document and, one in
 * ten, over what lies outside it (the OAuth server, sign-in pages, download links, docs,
 * probes; uploads and downloads abandoned half way: outside-contract.ts), and prints
 * the counts per status per operation and per generator, every violation with its
 * request (and the server's log of it), the open findings, and the slowest requests.
 * Exits 1 when a violation was found. Ctrl-C stops early and still prints the report.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createApp, openResources, tokensIssue, usersCreate } from '@cairn/cli';
import { loadConfig, type Logger } from '@cairn/platform';
import { startProjector } from '@cairn/projections';
import fc from 'fast-check';
import pg from 'pg';
import { casesFor, type FuzzCase } from './cases.ts';
import { describeOutcome, Tally } from './engine.ts';
import { descriptorsSettle, openDescriptors, outsideCases, prepareOutside, runOutside, type OutsideCase } from './outside-contract.ts';
import { defaultCaseOptions, seedFor, setUpFuzzing } from './setup.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '2000' },
    seed: { type: 'string' },
    'bound-ms': { type: 'string', default: '2000' },
    'forged-per-mille': { type: 'string', default: String(defaultCaseOptions.forgedTokensPerMille) },
    'keep-db': { type: 'boolean', default: false },
    skip: { type: 'string' },
  },
});
const total = Number(values.requests);
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const boundMs = Number(values['bound-ms']);
if (!Number.isInteger(total) || total <= 0 || !Number.isFinite(seed) || !Number.isFinite(boundMs)) {
  console.error('usage: npm run fuzz -- --requests N [--seed S] [--bound-ms MS] [--forged-per-mille N] [--skip REGEX] [--keep-db]');
  process.exit(2);
}

const serverUrl = process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const databaseName = `cairn_fuzz_${randomBytes(4).toString('hex')}`;
const databaseUrl = (() => {
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  return url.toString();
})();

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The server's error log lines, kept so that each 500 is printed with its stack. */
const serverErrors: string[] = [];
const logger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (message, fields) => serverErrors.push(`${message} ${JSON.stringify(fields ?? {})}`),
};

async function main(): Promise<number> {
  await admin((c) => c.query(`create database ${databaseName}`));
  const config = loadConfig({ DATABASE_URL: databaseUrl, CAIRN_PUBLIC_URL: 'http://cairn.test', CAIRN_LOG_LEVEL: 'error', CAIRN_CONSISTENCY_TIMEOUT_MS: '1000' });
  const resources = await openResources(config, { logger, poolSize: 6 });
  const projector = await startProjector({ db: resources.db, eventStore: resources.eventStore, projections: resources.projections.async, inline: resources.projections.inline, logger, databaseUrl });
  const app = createApp(resources, 'all');
  let counter = 0;
  const newUser = async (options: { admin?: boolean; scopes?: string } = {}) => {
    counter += 1;
    const { id } = await usersCreate(resources, ['--email', `fuzz${counter}@example.org`, '--name', `Fuzz User ${counter}`, ...(options.admin ? ['--system-admin'] : [])]);
    const token = await tokensIssue(resources, ['--user', id, '--scopes', options.scopes ?? 'read write']);
    return { id, token: token.access_token };
  };
  const [adminCaller, plain] = [await newUser({ admin: true }), await newUser()];
  const readOnly = { id: plain.id, token: (await tokensIssue(resources, ['--user', plain.id, '--scopes', 'read'])).access_token };
  const setup = await setUpFuzzing(app, resources.pool, { admin: adminCaller, plain, readOnly }, () => newUser(), { boundMs, maintainEvery: 50 });
  const options = { forgedTokensPerMille: Number(values['forged-per-mille']) };

  let stop = false;
  process.once('SIGINT', () => {
    stop = true;
  });
  const tally = new Tally();
  const logs = new Map<object, string[]>();
  const batch = 20;
  // Each operation draws its cases from its own seeded stream, in batches.
  const skip = values.skip ? new RegExp(values.skip) : undefined;
  const streams = setup.operations.filter((op) => !skip?.test(op.operationId)).map((op) => ({ op, arbitrary: casesFor(op, setup.ctx, options), drawn: 0, queue: [] as FuzzCase[] }));
  const outsideWorld = await prepareOutside(setup.client, resources, adminCaller);
  const outside = { queue: [] as OutsideCase[], drawn: 0, sent: 0, statuses: new Map<string, number>(), problems: [] as string[] };
  // Warm-up: pools and lazily opened files count in the baseline, then descriptors and memory are read.
  for (const c of fc.sample(outsideCases(outsideWorld), { seed, numRuns: 30 })) await runOutside(setup.client, { ...c, abandon: 'none' }, boundMs);
  (globalThis as { gc?: () => void }).gc?.();
  const before = { files: await openDescriptors(), heap: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss };
  console.error(`fuzz: seed ${seed}, ${total} requests over ${streams.length} operations and the routes outside the contract, bound ${boundMs} ms, database ${databaseName}`);
  for (let i = 0; i < total && !stop; i += 1) {
    if (i > 0 && i % 5000 === 0) {
      (globalThis as { gc?: () => void }).gc?.();
      const { heapUsed, rss } = process.memoryUsage();
      console.error(`fuzz: ${i} requests, ${tally.failures.length + outside.problems.length} violations, ${await openDescriptors()} files open, heap ${(heapUsed / 1_048_576).toFixed(0)} MB, rss ${(rss / 1_048_576).toFixed(0)} MB`);
    }
    if (i % 10 === 9) {
      if (outside.queue.length === 0) outside.queue = fc.sample(outsideCases(outsideWorld), { seed: seed + outside.drawn++, numRuns: batch });
      const c = outside.queue.shift();
      if (!c) continue;
      const { status, problems } = await runOutside(setup.client, c, boundMs);
      // Uploads append events, abandoned ones perhaps after their client left: the next
      // contract request must not be charged with them.
      if (c.abandon === 'none') setup.fuzzer.forgetLogLength();
      else await setup.fuzzer.awaitQuietLog();
      outside.sent += 1;
      outside.statuses.set(`${c.variant} ${status}`, (outside.statuses.get(`${c.variant} ${status}`) ?? 0) + 1);
      for (const p of problems) outside.problems.push(`${c.variant}: ${c.request.method} ${c.request.path.slice(0, 200)}: ${p}`);
      continue;
    }
    const stream = streams[i % streams.length];
    if (!stream) break;
    if (stream.queue.length === 0) {
      stream.queue = fc.sample(stream.arbitrary, { seed: seedFor(seed, stream.op.operationId) + stream.drawn, numRuns: batch });
      stream.drawn += 1;
    }
    const c = stream.queue.shift();
    if (!c) break;
    serverErrors.length = 0;
    const outcome = await setup.fuzzer.run(c);
    tally.record(outcome);
    if (serverErrors.length > 0 && (outcome.violations.length > 0 || outcome.known.length > 0)) logs.set(outcome, [...serverErrors]);
  }

  console.log(tally.report(seed));
  const files = await descriptorsSettle(before.files + 1);
  (globalThis as { gc?: () => void }).gc?.();
  const mb = (n: number) => `${(n / 1_048_576).toFixed(0)} MB`;
  const after = { heap: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss };
  console.log(`\noutside the contract: ${outside.sent} requests, ${outside.problems.length} violations`);
  for (const [key, n] of [...outside.statuses].sort()) console.log(`  ${key}: ${n}`);
  for (const p of outside.problems.slice(0, 50)) console.log(`  violation: ${p}`);
  console.log(`open file descriptors: ${before.files} before, ${files} after; heap ${mb(before.heap)} -> ${mb(after.heap)}, rss ${mb(before.rss)} -> ${mb(after.rss)}${(globalThis as { gc?: () => void }).gc ? '' : ' (no --expose-gc: heap figures include garbage)'}`);
  const leaked = files > before.files + 1;
  if (leaked) console.log(`violation: ${files - before.files} file descriptors stayed open`);
  const withLogs = [...tally.failures, ...[...tally.known.values()].map((list) => list[0])].filter((o) => o && logs.has(o));
  if (withLogs.length > 0) {
    console.log('\nserver log of the violations:');
    for (const o of withLogs) if (o) console.log(`${describeOutcome(o).split('\n')[0]}\n  ${(logs.get(o) ?? []).join('\n  ').slice(0, 3000)}`);
  }
  console.log(`\nreplay: npm run fuzz -- --requests ${total} --seed ${seed}`);

  await setup.client.close();
  await projector.stop();
  await resources.close();
  return tally.failures.length > 0 || outside.problems.length > 0 || leaked ? 1 : 0;
}

main()
  .then(async (code) => {
    if (!values['keep-db']) await admin((c) => c.query(`drop database if exists ${databaseName} with (force)`));
    process.exit(code);
  })
  .catch(async (error: unknown) => {
    console.error(error);
    if (!values['keep-db']) await admin((c) => c.query(`drop database if exists ${databaseName} with (force)`)).catch(() => undefined);
    process.exit(1);
  });
