import { parentPort } from 'node:worker_threads';
import type { WorkerMessage, WorkerRequest } from './extraction-pool.ts';
import { runExtraction } from './run-extraction.ts';

// The body of a pooled extraction worker, started through its bootstrap: it runs one
// extraction at a time, as the pool sends them, and answers each by its number.
const port = parentPort;
if (!port) throw new Error('extraction.worker.ts runs only as a worker thread');

// Parsers warn on the console for every malformed object they skip (pdf-lib does): a hostile
// file would flood the service's log through this thread's console, which is its own.
for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) console[method] = () => undefined;

const post = (message: WorkerMessage): void => port.postMessage(message);
port.on('message', (request: WorkerRequest) => {
  void runExtraction(request.input, (metadata) => post({ kind: 'progress', id: request.id, metadata })).then((result) => post({ kind: 'done', id: request.id, result }));
});
post({ kind: 'ready' });
