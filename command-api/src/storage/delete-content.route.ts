import { deleteContent } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { contentOf, openContentAsset } from './content-access.ts';

/**
 * Interface 4.3: 204. The record goes and its allocation is credited in one append; then
 * the bytes, unless another record still points at them (docs/storage.md).
 */
export const deleteContentRoute = (deps: CommandDeps) =>
  implement(deleteContent, async ({ params, context, req }) => {
    const { open } = await openContentAsset(deps, params['id'] ?? '', context, req, 'WRITE_CONTENT', true);
    const content = await contentOf(deps, open.asset.id, params['content_pk'] ?? '');
    const position = await deps.storage.removeContent(content, commandContext(context), commandMetadata(context));
    await awaitReadModels(deps, position, ['ContentRemoved', 'AllocationCredited']);
    return { status: 204, position };
  });
