import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { CheckedTarget } from './target-policy.ts';

export type PostLimits = { readonly timeoutMs: number; readonly maxResponseBytes: number };

/** `ok`: a 2xx answer within the bounds. Anything else (3xx included: no redirect is followed) is a failure. */
export type PostOutcome = { readonly ok: boolean; readonly status: number | null; readonly error: string | null; readonly durationMs: number };

/**
 * POSTs the body to the checked target. The connection goes to the address that was
 * checked, never to a second lookup's answer (no DNS rebinding window); TLS still checks
 * the certificate against the URL's host. The whole exchange is bounded by `timeoutMs`,
 * and at most `maxResponseBytes` of the answer are read.
 */
export function postWebhook(target: CheckedTarget, headers: Readonly<Record<string, string>>, body: string, limits: PostLimits): Promise<PostOutcome> {
  const started = performance.now();
  const family = target.address.version;
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address.text, family }]);
    else callback(null, target.address.text, family);
  };
  const { url } = target;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<PostOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ...outcome, durationMs: Math.round(performance.now() - started) });
    };
    const request = client.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), 'User-Agent': 'Cairn-Webhooks/1' },
        lookup: pinned,
        agent: false,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // The answer is not needed past its status: a receiver that sends more is cut off.
          if (read > limits.maxResponseBytes) response.destroy();
        });
        const done = () => finish(status >= 200 && status < 300 ? { ok: true, status, error: null } : { ok: false, status, error: `The receiver answered ${status}.` });
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      },
    );
    const deadline = setTimeout(() => {
      request.destroy();
      finish({ ok: false, status: null, error: `No answer within ${limits.timeoutMs} ms.` });
    }, limits.timeoutMs);
    request.on('error', (error) => finish({ ok: false, status: null, error: `The request failed: ${error.message}` }));
    request.end(body);
  });
}
