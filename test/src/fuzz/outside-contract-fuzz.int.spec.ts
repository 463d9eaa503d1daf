import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.ts';
import { Client } from './client.ts';
import { descriptorsSettle, openDescriptors, openFiles, outsideCases, prepareOutside, runOutside, type OutsideWorld } from './outside-contract.ts';

/**
 * Issue 23: what anyone can reach outside the contract (the OAuth server, sign-in pages,
 * download links, docs, operational endpoints), and uploads and downloads abandoned half
 * way, fuzzed. No 500, an answer within the bound, the security headers; and the process's
 * open descriptors come back to where they were once the requests are over.
 * FUZZ_SEED replays a run; FUZZ_OUTSIDE_RUNS sets the number of requests.
 */
const seed = Number(process.env['FUZZ_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const numRuns = Number(process.env['FUZZ_OUTSIDE_RUNS'] ?? 300);
const boundMs = 2000;
/** FUZZ_OUTSIDE_SKIP: a regular expression of case names to leave out. */
const skip = process.env['FUZZ_OUTSIDE_SKIP'] ? new RegExp(process.env['FUZZ_OUTSIDE_SKIP']) : undefined;

describe('the routes outside the contract, fuzzed', () => {
  let h: Harness;
  let client: Client;
  let world: OutsideWorld;

  beforeAll(async () => {
    h = await startHarness('all', { CAIRN_CONSISTENCY_TIMEOUT_MS: '1000' });
    const admin = await h.createUser({ admin: true });
    client = await Client.start(h.commandApp);
    world = await prepareOutside(client, h.resources, { id: admin.id, token: admin.token });
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await h?.close();
  });

  it(`answers every request within the rules and leaks no descriptor (seed ${seed})`, async () => {
    // Warm up every kind once, so that pools and lazily opened files count in the baseline.
    await fc.assert(fc.asyncProperty(outsideCases(world, skip), async (c) => void (await runOutside(client, { ...c, abandon: 'none' }, boundMs))), { seed, numRuns: 30 });
    const before = await openDescriptors();
    const heapBefore = process.memoryUsage().heapUsed;
    const statuses = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(outsideCases(world, skip), async (c) => {
        const { status, problems } = await runOutside(client, c, boundMs);
        statuses.set(`${c.variant} ${status}`, (statuses.get(`${c.variant} ${status}`) ?? 0) + 1);
        expect(problems, `${c.variant}: ${c.request.method} ${c.request.path.slice(0, 200)}`).toEqual([]);
      }),
      { seed, numRuns, endOnFailure: true },
    );
    const after = await descriptorsSettle(before);
    if (after > before) console.log(`outside fuzz: files still open: ${(await openFiles()).join(', ')}`);
    console.log(`outside fuzz: ${numRuns} requests; descriptors ${before} -> ${after}; heap ${(heapBefore / 1e6).toFixed(0)} -> ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB\n  ${[...statuses].sort().map(([k, n]) => `${k}: ${n}`).join('\n  ')}`);
    expect(after, `files open now: ${(await openFiles()).join(', ')}`).toBeLessThanOrEqual(before + 1);
  }, 300_000);
});
