import { createHash } from 'node:crypto';

/**
 * A text's 32-bit hash as PostgreSQL's `cairn_text_hash` makes it (migration 0041): the first
 * four bytes of its md5, a signed integer. The postings that hold an asset's tags hashed
 * (migration 0048) are written with it from Node and read back against the SQL function's.
 */
export const textHash = (text: string): number => createHash('md5').update(text, 'utf8').digest().readInt32BE(0);

/** Each tag's hash (`cairn_text_hashes`), in the tags' order. */
export const textHashes = (texts: readonly string[]): number[] => texts.map(textHash);
