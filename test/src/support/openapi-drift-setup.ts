import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { allContracts, apiTitle, apiVersion } from '@cairn/contract';
import { buildOpenApiDocument } from '@cairn/platform';
import type { TestProject } from 'vitest/node';
import { readAnswers, undocumentedAnswers, unreachedStatuses, type DocumentedResponses } from './openapi-drift.ts';
import { browserTestsRun, nginxTestsRun } from './optional-tools.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where each test file writes the answers it saw (support/answer-recorder.ts). */
    answersDirectory: string;
  }
}

/**
 * Once per run: a directory where each test file's harness writes the answers it saw;
 * at the end, every (operation, status, header) seen must be in the OpenAPI document, or
 * the run fails (docs/api-docs.md, "The document cannot drift"). A run of every integration
 * file also fails on documented statuses that no test reached, listing them; a run of some
 * files (or of some tests, or a shard) reaches few of them and only counts them.
 * CAIRN_OPENAPI_UNREACHED=report lists them without failing; =fail fails on them whatever ran.
 */
export default function setup(project: TestProject) {
  const directory = mkdtempSync(path.join(tmpdir(), 'cairn-answers-'));
  project.provide('answersDirectory', directory);

  return async () => {
    const seen = readAnswers(directory);
    rmSync(directory, { recursive: true, force: true });
    if (seen.size === 0) return;
    // The statuses and headers do not depend on the deployment's options.
    const doc = buildOpenApiDocument(allContracts, { publicUrl: 'http://cairn.test', title: apiTitle, version: apiVersion }) as DocumentedResponses;
    const unreached = unreachedStatuses(seen, doc);
    // A machine without Chromium or nginx skips those tests: what only they reach is listed, not failed.
    const optionalSkipped = !browserTestsRun() || !nginxTestsRun();
    const mode = unreachedMode(process.env['CAIRN_OPENAPI_UNREACHED'] ?? (optionalSkipped ? 'report' : undefined), await ranEveryFile(project));
    const list = (lines: readonly string[]) => lines.map((l) => `  ${l}`).join('\n');
    if (mode === 'count') console.log(`OpenAPI: ${seen.size} answers seen; ${unreached.length} documented statuses not reached by this run of some test files (checked on a run of all of them; CAIRN_OPENAPI_UNREACHED=report lists them).`);
    else if (unreached.length > 0) console.log(`OpenAPI: ${unreached.length} documented statuses that no test reached:\n${list(unreached)}`);
    else console.log(`OpenAPI: ${seen.size} answers seen; every documented status was reached by a test.`);
    const undocumented = undocumentedAnswers(seen, doc);
    if (undocumented.length > 0) throw new Error(`The OpenAPI document (GET /api/schema/) misses what the service answered (operation, status, header):\n${list(undocumented)}`);
    if (mode === 'fail' && unreached.length > 0) {
      throw new Error(`${unreached.length} documented statuses are reached by no test (listed above): provoke each in a test, or stop documenting what the server cannot answer (docs/api-docs.md).`);
    }
  };
}

/** What to do with unreached statuses: fail by default on a whole run, count on a partial one. */
export function unreachedMode(setting: string | undefined, wholeRun: boolean): 'fail' | 'report' | 'count' {
  if (setting === 'fail' || setting === 'report') return setting;
  if (setting !== undefined && setting !== '') throw new Error(`CAIRN_OPENAPI_UNREACHED is report or fail, not ${setting}`);
  return wholeRun ? 'fail' : 'count';
}

/** Whether this run ran every test of the project: every file, no test name filter, no shard. */
async function ranEveryFile(project: TestProject): Promise<boolean> {
  const config = project.vitest.config;
  if (config.testNamePattern || config.shard) return false;
  const ran = new Set(project.vitest.state.getTestModules().map((m) => m.moduleId));
  const { testFiles } = await project.globTestFiles();
  return testFiles.length > 0 && testFiles.every((file) => ran.has(file));
}
