import { closedLoop } from './closed-loop.ts';
import { keepAliveClient } from './keep-alive-client.ts';
import { spread } from './stats.ts';

export type SplitLoadResult = {
  readonly creates: number;
  readonly createsPerSecond: number;
  readonly postP50Ms: number;
  readonly postP99Ms: number;
  readonly getP50Ms: number;
  readonly getP99Ms: number;
  readonly pairP50Ms: number;
  readonly pairP99Ms: number;
  /** Failed pairs: a POST that was not 201 with a token, or a socket error. */
  readonly errors: number;
  readonly reads: number;
  /** Reads that did not answer 200 with the name just written. */
  readonly readMismatches: number;
  readonly lastMismatch: string | null;
};

/**
 * Each of `clients` POSTs a funding agency to the command process, then GETs it from the
 * query process with the write's X-Consistency-Token, and counts every read that is not a
 * 200 carrying the written name (read-your-writes across processes).
 */
export async function createThenRead(commandUrl: string, queryUrl: string, token: string, clients: number, seconds: number): Promise<SplitLoadResult> {
  const command = keepAliveClient(commandUrl, clients);
  const query = keepAliveClient(queryUrl, clients);
  const auth = { authorization: `Bearer ${token}` };
  const posts: number[] = [];
  const gets: number[] = [];
  let postErrors = 0;
  let reads = 0;
  let readMismatches = 0;
  let lastMismatch: string | null = null;
  let n = 0;
  try {
    const loop = await closedLoop(clients, seconds, async () => {
      const name = `Split agency ${(n += 1)}`;
      const t0 = performance.now();
      const created = await command.request('POST', '/api/funding-agencies/', { ...auth, 'content-type': 'application/json' }, JSON.stringify({ name }));
      const t1 = performance.now();
      posts.push(t1 - t0);
      const consistency = created.headers['x-consistency-token'];
      const id = created.status === 201 ? (JSON.parse(created.body) as { id?: string }).id : undefined;
      if (!id || typeof consistency !== 'string') {
        postErrors += 1;
        throw new Error(`POST answered ${created.status}`);
      }
      const read = await query.request('GET', `/api/funding-agencies/${id}/`, { ...auth, 'x-consistency-token': consistency });
      gets.push(performance.now() - t1);
      reads += 1;
      const body = read.status === 200 ? (JSON.parse(read.body) as { name?: string }) : null;
      if (body?.name !== name) {
        readMismatches += 1;
        lastMismatch = `${read.status} ${read.body.slice(0, 200)}`;
      }
    });
    const post = spread(posts);
    const get = spread(gets);
    return {
      creates: posts.length - postErrors,
      createsPerSecond: (posts.length - postErrors) / loop.seconds,
      postP50Ms: post.p50,
      postP99Ms: post.p99,
      getP50Ms: get.p50,
      getP99Ms: get.p99,
      pairP50Ms: loop.p50Ms,
      pairP99Ms: loop.p99Ms,
      errors: loop.errors,
      reads,
      readMismatches,
      lastMismatch,
    };
  } finally {
    command.close();
    query.close();
  }
}

/** The same keep-alive client POSTing only, for a like-for-like comparison with autocannon. */
export async function createsOnly(url: string, token: string, clients: number, seconds: number) {
  const client = keepAliveClient(url, clients);
  let n = 0;
  try {
    const loop = await closedLoop(clients, seconds, async () => {
      const reply = await client.request('POST', '/api/funding-agencies/', { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, JSON.stringify({ name: `Own agency ${(n += 1)}` }));
      if (reply.status !== 201) throw new Error(`POST answered ${reply.status}`);
    });
    return { generator: 'node:http keep-alive', requests: loop.ops, perSecond: loop.perSecond, p50Ms: loop.p50Ms, p99Ms: loop.p99Ms, errors: loop.errors };
  } finally {
    client.close();
  }
}
