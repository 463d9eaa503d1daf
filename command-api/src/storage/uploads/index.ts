import type { BoundOperation } from '@cairn/platform';
import type { CommandDeps } from '../../deps.ts';
import { abortUploadRoute } from './abort-upload.route.ts';
import { completeUploadRoute } from './complete-upload.route.ts';
import { putUploadPartRoute } from './put-upload-part.route.ts';
import { startUploadRoute } from './start-upload.route.ts';

/** Direct uploads (issue 25, docs/storage.md "Direct uploads"). */
export function uploadCommandRoutes(deps: CommandDeps): BoundOperation[] {
  return [startUploadRoute(deps), completeUploadRoute(deps), abortUploadRoute(deps), putUploadPartRoute(deps)];
}
