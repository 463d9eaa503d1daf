import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractMetadata, type ExtractionLimits, type ExtractionResult } from './index.ts';

// Every sample is built here, byte by byte or with pdf-lib: no binary fixture is committed.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-extraction-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const limits: ExtractionLimits = { timeoutMs: 10_000, maxMemoryMb: 64 };

async function sample(name: string, content: Uint8Array | string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

async function extract(name: string, content: Uint8Array | string, declaredContentType: string | null = null, overrides: Partial<ExtractionLimits> = {}): Promise<ExtractionResult> {
  return extractMetadata(await sample(name, content), { filename: name, declaredContentType }, { ...limits, ...overrides });
}

function succeeded(result: ExtractionResult): Record<string, unknown> {
  expect(result).toMatchObject({ status: 'succeeded' });
  return result.metadata;
}

describe('extractMetadata on well-formed files', () => {
  it('gives the dimensions of a PNG', async () => {
    const metadata = succeeded(await extract('pixel.png', png(3, 2)));
    expect(metadata).toMatchObject({ media_type: 'image/png', extension: 'png', media_type_source: 'magic', image: { width: 3, height: 2 } });
  });

  it('gives the dimensions and EXIF tags of a JPEG, with its date-time as written', async () => {
    const metadata = succeeded(await extract('photo.jpg', jpegWithExif(40, 30)));
    expect(metadata).toMatchObject({
      media_type: 'image/jpeg',
      image: { width: 40, height: 30, exif: { make: 'Cairn', model: 'Test Camera', date_time_original: '2024-05-06T07:08:09', f_number: 2.8 } },
    });
    expect(JSON.parse(JSON.stringify(metadata))).toEqual(metadata);
  });

  it('gives the page count and document info of a PDF', async () => {
    const document = await PDFDocument.create();
    for (let page = 0; page < 3; page += 1) document.addPage();
    document.setTitle('Quarterly Report');
    document.setAuthor('Ada Lovelace');
    document.setCreationDate(new Date('2024-01-02T03:04:05Z'));
    const metadata = succeeded(await extract('report.pdf', await document.save()));
    expect(metadata).toMatchObject({
      media_type: 'application/pdf',
      pdf: { pages: 3, encrypted: false, title: 'Quarterly Report', author: 'Ada Lovelace', creation_date: '2024-01-02T03:04:05.000Z' },
    });
  });

  it('gives the duration, sample rate and channels of a WAV', async () => {
    const metadata = succeeded(await extract('tone.wav', wav({ seconds: 1, sampleRate: 8000, channels: 2 })));
    expect(metadata).toMatchObject({ media_type: 'audio/wav', audio: { duration_seconds: 1, sample_rate: 8000, channels: 2, codec: 'PCM' } });
  });

  it('counts a quoted line break inside a CSV field as part of one row', async () => {
    const csv = 'id,name,note\r\n1,Ann,"line one\nline two"\r\n2,Bob,plain\r\n\r\n3,"Cy, Jr.",""\r\n';
    const metadata = succeeded(await extract('people.csv', csv, 'application/vnd.ms-excel'));
    expect(metadata).toMatchObject({ media_type: 'text/csv', media_type_source: 'extension', table: { format: 'csv', columns: ['id', 'name', 'note'], column_count: 3, row_count: 3, encoding: 'ascii' } });
    expect(metadata).not.toHaveProperty('truncated');
  });

  it('reads a TSV declared by its content type', async () => {
    const metadata = succeeded(await extract('export.dat', 'a\tb\tc\n1\t2\t3\n4\t5\t6\n7\t8\t9', 'text/tab-separated-values; charset=utf-8'));
    expect(metadata).toMatchObject({ media_type: 'text/tab-separated-values', media_type_source: 'declared', table: { format: 'tsv', columns: ['a', 'b', 'c'], row_count: 3 } });
  });

  it('gives the encoding and line count of UTF-8 and UTF-16 text', async () => {
    expect(succeeded(await extract('notes.txt', 'héllo\nwörld\r\nlast'))).toMatchObject({ media_type: 'text/plain', text: { encoding: 'utf-8', bom: false, line_count: 3 } });
    expect(succeeded(await extract('plain.md', '# title\n\nbody\n'))).toMatchObject({ media_type: 'text/markdown', text: { encoding: 'ascii', line_count: 3 } });
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('première\nseconde\n', 'utf16le')]);
    expect(succeeded(await extract('utf16.txt', utf16, 'text/plain'))).toMatchObject({ text: { encoding: 'utf-16le', bom: true, line_count: 2 } });
  });

  it('sniffs untyped content: text is text/plain, bytes are application/octet-stream', async () => {
    expect(succeeded(await extract('README', 'one\ntwo\n'))).toMatchObject({ media_type: 'text/plain', media_type_source: 'content', text: { line_count: 2 } });
    const bytes = Buffer.alloc(4096, 0x11);
    bytes[100] = 0;
    expect(succeeded(await extract('blob', bytes))).toMatchObject({ media_type: 'application/octet-stream', text: { encoding: 'binary' } });
  });

  it('stops a streaming count at maxBytesRead and says so', async () => {
    const metadata = succeeded(await extract('long.txt', 'line\n'.repeat(1000), null, { maxBytesRead: 100 }));
    expect(metadata).toMatchObject({ truncated: true, text: { truncated: true, bytes_read: 100, line_count: 20 } });
    // The cut falls inside the fourth row's quoted field: three rows are whole.
    const table = succeeded(await extract('long.csv', `a,b\n${'1,"x\ny"\n'.repeat(100)}`, null, { maxBytesRead: 33 }));
    expect(table).toMatchObject({ truncated: true, table: { columns: ['a', 'b'], row_count: 3, truncated: true } });
  });
});

describe('extractMetadata on bad and hostile files', () => {
  it('answers for a PNG signature followed by garbage without throwing', async () => {
    // file-type checks the chunk structure after the signature, so this is no PNG to it:
    // the declared type is kept, and no image extractor runs on unconfirmed bytes.
    const garbage = Buffer.concat([png(1, 1).subarray(0, 8), noise(512)]);
    const result = await extract('broken.png', garbage, 'image/png');
    expect(result).toEqual({
      status: 'succeeded',
      metadata: { size_bytes: 520, media_type: 'image/png', media_type_source: 'declared', extension: 'png', text: { encoding: 'binary' } },
    });
  });

  it('fails, with what it had found, on a JPEG whose header is garbage', async () => {
    const result = await extract('broken.jpg', Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x03]), noise(64)]));
    expect(result).toMatchObject({ status: 'failed', error: expect.stringMatching(/^image extraction failed: /), metadata: { media_type: 'image/jpeg', size_bytes: 70 } });
  });

  it('answers for a truncated PDF without throwing', async () => {
    const document = await PDFDocument.create();
    document.addPage();
    const bytes = await document.save();
    const result = await extract('cut.pdf', bytes.subarray(0, Math.floor(bytes.length / 3)));
    expect(result.metadata).toMatchObject({ media_type: 'application/pdf' });
    if (result.status === 'failed') expect(result.error).toMatch(/^pdf extraction failed/);
  });

  it('answers for a CSV whose quote never closes beyond the record limit', async () => {
    const result = await extract('open-quote.csv', `a,b\n1,"${'x'.repeat(17 * 1024 * 1024)}`);
    expect(result).toMatchObject({ status: 'failed', error: expect.stringMatching(/^csv extraction failed/), metadata: { table: { columns: ['a', 'b'], row_count: 0 } } });
  });

  it('answers for a missing file and for a directory', async () => {
    const missing = await extractMetadata(join(dir, 'absent.txt'), { filename: 'absent.txt', declaredContentType: null }, limits);
    expect(missing).toMatchObject({ status: 'failed', error: expect.stringMatching(/ENOENT/), metadata: {} });
    const directory = await extractMetadata(dir, { filename: 'dir', declaredContentType: null }, limits);
    expect(directory).toMatchObject({ status: 'failed', error: 'not a regular file' });
  });

  it('stops a worker that is still busy when the time is up', async () => {
    // 66 MiB of CSV takes the parser over 2 s here; the worker is stopped mid-parse.
    const rows = Buffer.from('1,"quoted, with a comma",3.14159,some more text\n'.repeat(1024));
    const path = await sample('big.csv', Buffer.concat([Buffer.from('a,b,c,d\n'), ...Array.from({ length: 1400 }, () => rows)]));
    const started = performance.now();
    const result = await extractMetadata(path, { filename: 'big.csv', declaredContentType: 'text/csv' }, { ...limits, timeoutMs: 1000 });
    const elapsed = performance.now() - started;
    expect(result).toEqual({ status: 'failed', error: 'extraction timed out after 1000 ms', metadata: expect.objectContaining({ media_type: 'text/csv' }) });
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    expect(elapsed).toBeLessThan(2000);
  });

  it('replaces a thread it stopped, and keeps the others for the next files', async () => {
    const timedOut = await extract('slow.txt', 'x'.repeat(10), null, { timeoutMs: 1 });
    expect(timedOut).toMatchObject({ status: 'failed', error: 'extraction timed out after 1 ms' });
    const after = await Promise.all(Array.from({ length: 6 }, (_, i) => extract(`after-${i}.txt`, `line ${i}\nsecond\n`)));
    for (const result of after) expect(succeeded(result)).toMatchObject({ text: expect.objectContaining({ line_count: 2 }) });
    // A kept thread answers a small file in milliseconds, not the ~0.2 s a new one takes to start.
    const started = performance.now();
    await extract('warm.txt', 'warm\n');
    expect(performance.now() - started).toBeLessThan(150);
  });

  it('times out even before the worker has started', async () => {
    const started = performance.now();
    // A heap limit no other test uses: a pool of its own, whose first thread is still starting.
    const result = await extract('quick.txt', 'x', null, { timeoutMs: 5, maxMemoryMb: 40 });
    expect(result).toEqual({ status: 'failed', error: 'extraction timed out after 5 ms', metadata: {} });
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('stops a worker whose heap outgrows maxMemoryMb', async () => {
    // pdf-lib builds an object for every indirect object in the file: a few MiB of tiny
    // objects grow a heap many times their size.
    const objects = Array.from({ length: 400_000 }, (_, i) => `${i + 1} 0 obj\n[${i} ${i} ${i} ${i}]\nendobj\n`).join('');
    const bomb = `%PDF-1.7\n${objects}trailer\n<< /Root 1 0 R >>\n%%EOF\n`;
    const result = await extract('bomb.pdf', bomb, 'application/pdf', { maxMemoryMb: 32 });
    expect(result).toEqual({ status: 'failed', error: 'extraction ran out of memory', metadata: expect.objectContaining({ media_type: 'application/pdf' }) });
    // Filling a heap takes seconds on a loaded two-core machine.
  }, 20_000);

  it('refuses limits that make no sense', async () => {
    await expect(extractMetadata('x', { filename: 'x', declaredContentType: null }, { timeoutMs: 0, maxMemoryMb: 64 })).rejects.toThrow(RangeError);
    await expect(extractMetadata('x', { filename: 'x', declaredContentType: null }, { timeoutMs: 100, maxMemoryMb: 4 })).rejects.toThrow(RangeError);
  });
});

/** Bytes from a fixed linear congruential sequence: binary, with NUL bytes, the same on every run. */
function noise(length: number): Buffer {
  const out = Buffer.alloc(length);
  let state = 12345;
  for (let i = 0; i < length; i += 1) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    out[i] = state >>> 16;
  }
  return out;
}

function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, truecolour, deflate, no filter method, no interlace
  const rows = Buffer.alloc(height * (1 + width * 3)); // filter byte 0 and black pixels
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

type IfdEntry = { tag: number; ascii?: string; long?: number; rational?: [number, number] };

/** A little-endian TIFF block: IFD0 (Make, Model, a pointer to the EXIF IFD) and the EXIF IFD. */
function tiff(ifd0: IfdEntry[], exif: IfdEntry[]): Buffer {
  const ifdSize = (entries: IfdEntry[]): number => 2 + entries.length * 12 + 4;
  const exifOffset = 8 + ifdSize(ifd0) + 12;
  let dataOffset = exifOffset + ifdSize(exif);
  const data: Buffer[] = [];
  const ifd = (entries: IfdEntry[]): Buffer => {
    const out = Buffer.alloc(ifdSize(entries));
    out.writeUInt16LE(entries.length, 0);
    entries.forEach((entry, i) => {
      const at = 2 + i * 12;
      out.writeUInt16LE(entry.tag, at);
      if (entry.ascii !== undefined) {
        const bytes = Buffer.from(`${entry.ascii}\0`, 'latin1');
        out.writeUInt16LE(2, at + 2);
        out.writeUInt32LE(bytes.length, at + 4);
        out.writeUInt32LE(dataOffset, at + 8);
        data.push(bytes);
        dataOffset += bytes.length;
      } else if (entry.rational !== undefined) {
        const bytes = Buffer.alloc(8);
        bytes.writeUInt32LE(entry.rational[0], 0);
        bytes.writeUInt32LE(entry.rational[1], 4);
        out.writeUInt16LE(5, at + 2);
        out.writeUInt32LE(1, at + 4);
        out.writeUInt32LE(dataOffset, at + 8);
        data.push(bytes);
        dataOffset += bytes.length;
      } else {
        out.writeUInt16LE(4, at + 2);
        out.writeUInt32LE(1, at + 4);
        out.writeUInt32LE(entry.long ?? 0, at + 8);
      }
    });
    return out;
  };
  const head = Buffer.from([0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00]);
  const first = ifd([...ifd0, { tag: 0x8769, long: exifOffset }]);
  const second = ifd(exif);
  return Buffer.concat([head, first, second, ...data]);
}

/** SOI, an APP1 EXIF segment, a baseline frame header and EOI: enough for every header reader. */
function jpegWithExif(width: number, height: number): Buffer {
  const exif = Buffer.concat([
    Buffer.from('Exif\0\0', 'latin1'),
    tiff(
      [
        { tag: 0x010f, ascii: 'Cairn' },
        { tag: 0x0110, ascii: 'Test Camera' },
      ],
      [
        { tag: 0x829d, rational: [28, 10] },
        { tag: 0x9003, ascii: '2024:05:06 07:08:09' },
      ],
    ),
  ]);
  const app1 = Buffer.alloc(4);
  app1.writeUInt16BE(0xffe1, 0);
  app1.writeUInt16BE(exif.length + 2, 2);
  const frame = Buffer.alloc(19);
  frame.writeUInt16BE(0xffc0, 0);
  frame.writeUInt16BE(17, 2);
  frame.writeUInt8(8, 4);
  frame.writeUInt16BE(height, 5);
  frame.writeUInt16BE(width, 7);
  frame.set([3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1], 9);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app1, exif, frame, Buffer.from([0xff, 0xd9])]);
}

function wav(options: { seconds: number; sampleRate: number; channels: number }): Buffer {
  const bytesPerSample = 2;
  const dataBytes = options.seconds * options.sampleRate * options.channels * bytesPerSample;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(options.channels, 22);
  header.writeUInt32LE(options.sampleRate, 24);
  header.writeUInt32LE(options.sampleRate * options.channels * bytesPerSample, 28);
  header.writeUInt16LE(options.channels * bytesPerSample, 32);
  header.writeUInt16LE(bytesPerSample * 8, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  return Buffer.concat([header, Buffer.alloc(dataBytes)]);
}
