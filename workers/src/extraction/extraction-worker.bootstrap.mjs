// The worker's entry (see extract-metadata.ts): a worker thread starts without the module
// hooks of its parent, so tsx is registered here before the TypeScript body is imported.
import { register } from 'tsx/esm/api';

register();
await import('./extraction.worker.ts');
