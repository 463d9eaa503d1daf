import { extractContentMetadata } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { findContent, presentContent } from '@cairn/projections';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { contentOf, openContentAsset } from './content-access.ts';

/**
 * Interface 4.3 and 7: runs now and forces a new extraction; 404 for an unknown or hidden
 * asset or content, 403 without WRITE_METADATA, then 503 where extraction is disabled.
 * Extraction changes no field of the asset: allowed while it is locked.
 */
export const extractMetadataRoute = (deps: CommandDeps) =>
  implement(extractContentMetadata, async ({ params, context, req }) => {
    const { open } = await openContentAsset(deps, params['id'] ?? '', context, req, 'WRITE_METADATA', false);
    const content = await contentOf(deps, open.asset.id, params['content_pk'] ?? '');
    if (!deps.storage.extractionEnabled) throw httpErrors.disabled('extraction_disabled', 'Metadata extraction is disabled on this deployment.');
    const position = await deps.storage.extractNow(content.id, commandContext(context), commandMetadata(context));
    await awaitReadModels(deps, position, ['ContentMetadataExtracted']);
    const row = await findContent(deps.db, open.asset.id, content.id);
    if (!row) throw httpErrors.notFound('Content not found.');
    return { status: 200, body: presentContent(row), position };
  });
