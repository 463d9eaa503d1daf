import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAnswerKey } from './answer-recorder.ts';

/** The part of the OpenAPI document the drift check reads. */
export type DocumentedResponses = {
  readonly paths: Record<string, Record<string, { readonly operationId: string; readonly responses: Record<string, { readonly headers?: Record<string, unknown> }> }>>;
};

/** Per operation, per documented status, the headers documented on it (lower case). */
export function documentedAnswers(doc: DocumentedResponses): Map<string, Map<number, Set<string>>> {
  const documented = new Map<string, Map<number, Set<string>>>();
  for (const methods of Object.values(doc.paths)) {
    for (const operation of Object.values(methods)) {
      const statuses = new Map<number, Set<string>>();
      for (const [status, response] of Object.entries(operation.responses)) statuses.set(Number(status), new Set(Object.keys(response.headers ?? {}).map((h) => h.toLowerCase())));
      documented.set(operation.operationId, statuses);
    }
  }
  return documented;
}

/** What the service answered that the document does not say: `operationId status` or `operationId status header`. */
export function undocumentedAnswers(seen: Iterable<string>, doc: DocumentedResponses): string[] {
  const documented = documentedAnswers(doc);
  const missing = new Set<string>();
  for (const line of seen) {
    const key = parseAnswerKey(line);
    if (!key) continue;
    const statuses = documented.get(key.operationId);
    const headers = statuses?.get(key.status);
    if (!headers) missing.add(`${key.operationId} ${key.status}`);
    else if (key.header !== null && !headers.has(key.header)) missing.add(`${key.operationId} ${key.status} ${key.header}`);
  }
  return [...missing].sort();
}

/** Documented statuses no answer reached: `operationId status`. */
export function unreachedStatuses(seen: Iterable<string>, doc: DocumentedResponses): string[] {
  const reached = new Set<string>();
  for (const line of seen) {
    const key = parseAnswerKey(line);
    if (key) reached.add(`${key.operationId} ${key.status}`);
  }
  const unreached: string[] = [];
  for (const [operationId, statuses] of documentedAnswers(doc)) {
    for (const status of statuses.keys()) if (!reached.has(`${operationId} ${status}`)) unreached.push(`${operationId} ${status}`);
  }
  return unreached.sort();
}

/** Every answer key the test files of this run wrote to `directory`. */
export function readAnswers(directory: string): Set<string> {
  const seen = new Set<string>();
  let files: string[];
  try {
    files = readdirSync(directory);
  } catch {
    // No test file of this run started a harness.
    return seen;
  }
  for (const file of files) {
    for (const line of readFileSync(path.join(directory, file), 'utf8').split('\n')) if (line && !line.startsWith('#')) seen.add(line);
  }
  return seen;
}
