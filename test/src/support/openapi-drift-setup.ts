import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { allContracts, apiTitle, apiVersion } from '@cairn/contract';
import { buildOpenApiDocument } from '@cairn/platform';
import type { TestProject } from 'vitest/node';
import { readAnswers, undocumentedAnswers, unreachedStatuses, type DocumentedResponses } from './openapi-drift.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where each test file writes the answers it saw (support/answer-recorder.ts). */
    answersDirectory: string;
  }
}

/**
 * Once per run: a directory where each test file's harness writes the answers it saw;
 * at the end, every (operation, status, header) seen must be in the OpenAPI document, or
 * the run fails (docs/api-docs.md, "The document cannot drift"). Documented statuses that
 * no test reached are counted; CAIRN_OPENAPI_UNREACHED=report lists them, =fail fails the
 * run on them (meaningful only when the whole suite ran).
 */
export default function setup(project: TestProject) {
  const directory = mkdtempSync(path.join(tmpdir(), 'cairn-answers-'));
  project.provide('answersDirectory', directory);

  return () => {
    const seen = readAnswers(directory);
    rmSync(directory, { recursive: true, force: true });
    if (seen.size === 0) return;
    // The statuses and headers do not depend on the deployment's options.
    const doc = buildOpenApiDocument(allContracts, { publicUrl: 'http://cairn.test', title: apiTitle, version: apiVersion }) as DocumentedResponses;
    const unreached = unreachedStatuses(seen, doc);
    const mode = process.env['CAIRN_OPENAPI_UNREACHED'];
    const list = (lines: readonly string[]) => lines.map((l) => `  ${l}`).join('\n');
    if (mode === 'report' || mode === 'fail') console.log(`OpenAPI: ${unreached.length} documented statuses that no test reached:\n${list(unreached)}`);
    else console.log(`OpenAPI: ${seen.size} answers seen; ${unreached.length} documented statuses not reached by this run (CAIRN_OPENAPI_UNREACHED=report lists them).`);
    const undocumented = undocumentedAnswers(seen, doc);
    if (undocumented.length > 0) throw new Error(`The OpenAPI document (GET /api/schema/) misses what the service answered (operation, status, header):\n${list(undocumented)}`);
    if (mode === 'fail' && unreached.length > 0) throw new Error(`${unreached.length} documented statuses are reached by no test (listed above).`);
  };
}
