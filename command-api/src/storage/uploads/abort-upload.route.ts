import { abortUpload } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../../deps.ts';
import { openUpload } from './upload-access.ts';

/**
 * 204: the parts are removed and the reservation released (docs/storage.md "Direct
 * uploads"). Allowed on a locked or migrating asset: it changes none of the asset's content
 * and gives back what the upload held. An upload that ended already answers 204 again;
 * a completed one 409 (its content is deleted as content).
 */
export const abortUploadRoute = (deps: CommandDeps) =>
  implement(abortUpload, async ({ params, context, req }) => {
    const { upload } = await openUpload(deps, params, context, req, false);
    const position = await deps.storage.uploads.endUpload(upload, 'aborted', commandContext(context), commandMetadata(context));
    await awaitReadModels(deps, position, ['UploadAborted', 'AllocationReleased']);
    return { status: 204, position };
  });
