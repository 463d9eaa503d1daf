import { isAscii } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { TextDecoder } from 'node:util';

/**
 * `unknown`: 8-bit text that is not UTF-8 (Latin-1, Windows-1252, ...), decoded as
 * Windows-1252 so that lines and delimiters still count; `binary`: not text at all.
 */
export type TextEncoding = 'ascii' | 'utf-8' | 'utf-16le' | 'utf-16be' | 'unknown' | 'binary';

export type TextScan = { encoding: TextEncoding; bom: boolean; bytesRead: number; truncated: boolean };

const chunkBytes = 256 * 1024;
// Git's test for binary content: a NUL byte in the first 8 KiB.
const binarySniffBytes = 8 * 1024;

/**
 * Streams the first `maxBytes` of a file of `sizeBytes` as decoded text to `onText`,
 * holding one chunk at a time. Stops early, without calling `onText`, when the file is
 * binary. When the file is longer than `maxBytes` the decoder is not flushed, so a
 * character cut at the limit is dropped rather than reported as an encoding error.
 */
export async function scanText(filePath: string, sizeBytes: number, maxBytes: number, onText: (text: string) => void): Promise<TextScan> {
  const truncated = sizeBytes > maxBytes;
  const stream = createReadStream(filePath, { highWaterMark: chunkBytes, end: maxBytes - 1 });
  let decoder: TextDecoder | undefined;
  let encoding: TextEncoding = 'ascii';
  let bom = false;
  let bytesRead = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (!decoder) {
        ({ decoder, encoding, bom } = startDecoding(chunk));
        if (encoding === 'binary') return { encoding, bom, bytesRead: chunk.length, truncated: false };
      }
      bytesRead += chunk.length;
      if (encoding === 'ascii' && !isAscii(chunk)) encoding = 'utf-8';
      try {
        onText(decoder.decode(chunk, { stream: true }));
      } catch (error) {
        if (!(error instanceof TypeError) || (encoding !== 'ascii' && encoding !== 'utf-8')) throw error;
        // Not UTF-8 after all: go on as an 8-bit encoding. At most the three bytes of an
        // incomplete sequence held from the previous chunk are lost, and they hold no line break.
        encoding = 'unknown';
        decoder = new TextDecoder('windows-1252');
        onText(decoder.decode(chunk, { stream: true }));
      }
    }
    if (decoder && !truncated) {
      try {
        onText(decoder.decode());
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
        encoding = 'unknown';
      }
    }
    return { encoding, bom, bytesRead, truncated };
  } finally {
    stream.destroy();
  }
}

function startDecoding(first: Buffer): { decoder: TextDecoder; encoding: TextEncoding; bom: boolean } {
  // The decoders drop the byte-order mark themselves (ignoreBOM is false by default).
  if (first[0] === 0xef && first[1] === 0xbb && first[2] === 0xbf) return { decoder: utf8(), encoding: 'utf-8', bom: true };
  if (first[0] === 0xff && first[1] === 0xfe) return { decoder: new TextDecoder('utf-16le'), encoding: 'utf-16le', bom: true };
  if (first[0] === 0xfe && first[1] === 0xff) return { decoder: new TextDecoder('utf-16be'), encoding: 'utf-16be', bom: true };
  const binary = first.subarray(0, binarySniffBytes).includes(0);
  return { decoder: utf8(), encoding: binary ? 'binary' : 'ascii', bom: false };
}

function utf8(): TextDecoder {
  return new TextDecoder('utf-8', { fatal: true });
}
