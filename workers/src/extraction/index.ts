export { defaultMaxBytesRead, extractMetadata, minMemoryMb, type ExtractionHints, type ExtractionLimits, type ExtractionResult } from './extract-metadata.ts';
