import { parentPort, workerData } from 'node:worker_threads';
import type { WorkerMessage } from './extract-metadata.ts';
import { runExtraction, type ExtractionInput } from './run-extraction.ts';

// The body of the extraction worker, started by extractMetadata through its bootstrap.
const port = parentPort;
if (!port) throw new Error('extraction.worker.ts runs only as a worker thread');

// Parsers warn on the console for every malformed object they skip (pdf-lib does): a hostile
// file would flood the service's log through this thread's console, which is its own.
for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) console[method] = () => undefined;

const post = (message: WorkerMessage): void => port.postMessage(message);
const result = await runExtraction(workerData as ExtractionInput, (metadata) => post({ kind: 'progress', metadata }));
post({ kind: 'done', result });
