import { readFile } from 'node:fs/promises';
import { PDFDocument } from 'pdf-lib';
import { compact, toJsonValue, type JsonValue } from './json-values.ts';

/**
 * `{ pages, title, author, subject, keywords, creator, producer, creation_date,
 * modification_date, encrypted }`. pdf-lib parses the whole file, so the file is read
 * into memory only when it is within `maxBytes`; the objects it builds live on the
 * worker's bounded heap. The info strings of an encrypted file are ciphertext, so only the
 * page count is given for one.
 */
export async function extractPdf(filePath: string, sizeBytes: number, maxBytes: number): Promise<Record<string, JsonValue>> {
  if (sizeBytes > maxBytes) throw new Error(`the pdf of ${sizeBytes} bytes is over the limit of ${maxBytes} bytes that may be read into memory`);
  const bytes = await readFile(filePath);
  const document = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
  const pages = document.getPageCount();
  if (document.isEncrypted) return { pages, encrypted: true };
  return compact({
    pages,
    encrypted: false,
    title: field(() => document.getTitle()),
    author: field(() => document.getAuthor()),
    subject: field(() => document.getSubject()),
    keywords: field(() => document.getKeywords()),
    creator: field(() => document.getCreator()),
    producer: field(() => document.getProducer()),
    creation_date: field(() => document.getCreationDate()),
    modification_date: field(() => document.getModificationDate()),
  });
}

/** A malformed info entry (a date that does not parse, a number where a string belongs) is left out, not fatal. */
function field(read: () => string | Date | undefined): JsonValue | undefined {
  try {
    return toJsonValue(read());
  } catch {
    return undefined;
  }
}
