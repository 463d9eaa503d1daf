import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { allContracts } from '@cairn/contract';
import type { OperationContract } from '@cairn/platform';
import express, { type Express, type Response } from 'express';

/**
 * What the HTTP tests see the service answer, kept to check the OpenAPI document against
 * (docs/api-docs.md, "The document cannot drift"): per operation, each status and, per
 * status, the response headers. Installed only by the test harness, in front of the apps.
 */
export type Answer = { readonly operationId: string; readonly status: number; readonly headers: readonly string[] };

/**
 * Headers every answer may carry, whatever the operation: the transport's own, the request
 * id, and the security headers of docs/security.md. docs/api-docs.md lists them once;
 * the document does not repeat them on every response.
 */
export const everyAnswersHeaders: ReadonlySet<string> = new Set([
  'connection',
  'content-length',
  'content-type',
  'date',
  'keep-alive',
  'transfer-encoding',
  'x-request-id',
  'content-security-policy',
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'origin-agent-cluster',
  'referrer-policy',
  'strict-transport-security',
  'x-content-type-options',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-frame-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
]);

const uuid = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const routes = allContracts.map((contract: OperationContract) => ({
  contract,
  method: contract.method.toUpperCase(),
  pattern: new RegExp(`^${contract.path.replace(/\{\w+\}/g, uuid).replace(/\/$/, '')}/?$`),
}));

/** The operation a request is for; none for paths and methods outside the contract (404, 405). */
export function operationOf(method: string, requestPath: string): OperationContract | undefined {
  const wanted = method === 'HEAD' ? 'GET' : method;
  return routes.find((r) => r.method === wanted && r.pattern.test(requestPath))?.contract;
}

/** `operationId status header` lines, one per (operation, status) with `-` and one per header. */
export function answerKeys(answer: Answer): string[] {
  return [`${answer.operationId} ${answer.status} -`, ...answer.headers.map((h) => `${answer.operationId} ${answer.status} ${h}`)];
}

export function parseAnswerKey(line: string): { operationId: string; status: number; header: string | null } | null {
  const [operationId, status, header] = line.split(' ');
  if (!operationId || !status || !header) return null;
  return { operationId, status: Number(status), header: header === '-' ? null : header };
}

/** Collects the answers of one test file and writes them to a file of the run's directory. */
export class AnswerRecorder {
  readonly keys = new Set<string>();
  private readonly file: string | undefined;

  constructor(directory: string | undefined) {
    this.file = directory ? path.join(directory, `${randomUUID()}.txt`) : undefined;
  }

  record(method: string, requestPath: string, res: Response): void {
    const contract = operationOf(method, requestPath);
    // 421: a split app asked for an operation the other side serves (only by bypassing the gateway).
    if (!contract || res.statusCode === 421) return;
    const headers = res
      .getHeaderNames()
      .map((h) => h.toLowerCase())
      .filter((h) => !everyAnswersHeaders.has(h))
      .sort();
    const added = answerKeys({ operationId: contract.operationId, status: res.statusCode, headers }).filter((key) => !this.keys.has(key));
    if (added.length === 0) return;
    for (const key of added) this.keys.add(key);
    // Appended at once, not only when the harness closes: a test file's worker may be ended
    // without an exit event (a timer set to write later was lost with the file's last
    // answers), and apps built beside the harness record too.
    if (!this.file) return;
    mkdirSync(path.dirname(this.file), { recursive: true });
    appendFileSync(this.file, `${added.join('\n')}\n`);
  }

  /** Writes everything seen so far (again: the file is replaced). */
  flush(): void {
    if (!this.file || this.keys.size === 0) return;
    mkdirSync(path.dirname(this.file), { recursive: true });
    writeFileSync(this.file, [...this.keys].join('\n'));
  }

  /** An app that records each answer of `app`, and is `app` in every other way. */
  wrap(app: Express): Express {
    const outer = express();
    outer.disable('x-powered-by');
    // Tests read the app's locals (its read cache).
    outer.locals = app.locals;
    outer.use((req, res, next) => {
      const { method, path: requestPath } = req;
      res.once('finish', () => this.record(method, requestPath, res));
      app(req, res, next);
    });
    return outer;
  }
}
