import type { HttpRole } from './create-app.ts';

/** What one process runs: everything, or one role of a split deployment (README: Deploy). */
export type Role = HttpRole | 'projector' | 'worker';
export const roles: readonly Role[] = ['all', 'command', 'query', 'projector', 'worker'];
