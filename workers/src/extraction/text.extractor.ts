import type { JsonValue } from './json-values.ts';
import { scanText } from './text-scan.ts';

/**
 * `{ encoding, bom, line_count }` of a text file, read as a stream. Lines end with LF,
 * CRLF or a lone CR; a last line without a line break counts. Beyond `maxBytes` the count
 * covers the bytes read and `truncated` is true.
 */
export async function extractText(filePath: string, sizeBytes: number, maxBytes: number): Promise<Record<string, JsonValue>> {
  const counter = lineCounter();
  const scan = await scanText(filePath, sizeBytes, maxBytes, counter.add);
  if (scan.encoding === 'binary') return { encoding: 'binary' };
  return {
    encoding: scan.encoding,
    bom: scan.bom,
    line_count: counter.lines(),
    ...(scan.truncated ? { truncated: true, bytes_read: scan.bytesRead } : {}),
  };
}

function lineCounter(): { add: (text: string) => void; lines: () => number } {
  let breaks = 0;
  let endsWithCr = false;
  let lastIsBreak = true;
  let empty = true;
  return {
    add(text) {
      if (text.length === 0) return;
      // A CRLF split across two chunks is one break: the CR was counted with the first.
      const start = endsWithCr && text.startsWith('\n') ? 1 : 0;
      for (const _ of text.slice(start).matchAll(/\r\n|\r|\n/g)) breaks += 1;
      endsWithCr = text.endsWith('\r');
      const last = text.at(-1);
      lastIsBreak = last === '\n' || last === '\r';
      empty = false;
    },
    lines: () => (empty ? 0 : breaks + (lastIsBreak ? 0 : 1)),
  };
}
