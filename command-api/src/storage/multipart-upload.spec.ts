import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Request } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readUpload } from './multipart-upload.ts';

/**
 * A multipart body refused for a field (text that is not UTF-8) must store nothing: its
 * file part usually arrives in the same chunk, and the parser goes on emitting it after the
 * refusal. Once a handler was started for it, and a content record was written under the
 * 400 (content-records.int.spec.ts failed on it once in a full run).
 */
describe('readUpload', () => {
  let server: Server;
  let url: string;
  const started: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      readUpload(req as unknown as Request, {
        file: async (fields, part) => {
          started.push(part.filename);
          part.stream.resume();
          await new Promise((resolve) => part.stream.on('end', resolve));
          return fields;
        },
        record: async (fields) => fields,
      }).then(
        () => res.writeHead(201).end(),
        () => res.writeHead(400).end(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  const boundary = 'cairn-boundary';
  const part = (name: string, value: Buffer, filename?: string) =>
    Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n\r\n`), value, Buffer.from('\r\n')]);
  const post = (parts: Buffer[]) =>
    fetch(url, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]) });

  it('starts no file handler after refusing a field, though the file part came in the same chunk', async () => {
    const notUtf8 = Buffer.from([0x6e, 0xff, 0xfe, 0x2e, 0x63, 0x73, 0x76]);
    for (let i = 0; i < 20; i += 1) {
      const res = await post([part('filename', notUtf8), part('file', Buffer.from('bytes'), 'refused.bin')]);
      expect(res.status).toBe(400);
    }
    expect(started).toEqual([]);
    // The same body with a valid field is stored.
    const ok = await post([part('filename', Buffer.from('n.csv')), part('file', Buffer.from('bytes'), 'kept.bin')]);
    expect(ok.status).toBe(201);
    expect(started).toEqual(['kept.bin']);
  });
});
