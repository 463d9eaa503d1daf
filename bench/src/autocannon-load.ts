import autocannon from 'autocannon';

export type LoadResult = {
  readonly generator: string;
  readonly requests: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
};

/**
 * `connections` autocannon connections POSTing new funding agencies for `seconds`
 * (closed loop, one request in flight per connection). Errors: non-2xx, socket errors, timeouts.
 */
export async function autocannonCreates(url: string, token: string, connections: number, seconds: number): Promise<LoadResult> {
  let n = 0;
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: '/api/funding-agencies/',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: JSON.stringify({ name: `Load agency ${(n += 1)}` }) }),
      },
    ],
  });
  const ok = result['2xx'];
  return {
    generator: 'autocannon',
    requests: ok,
    perSecond: ok / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}
