import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { checkPresigned, isPresigned } from './s3-sigv4.ts';

// s3rver ships no types; this is the part of it used here.
type S3rverApp = {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  readonly store: { putBucket(name: string): Promise<unknown>; getResourcePath(bucket: string, key: string | undefined, resource: string): string };
  readonly logger: { close(): void };
};
type S3rverOptions = { readonly directory: string; readonly silent: boolean };
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: S3rverOptions) => S3rverApp;

export type S3TestServer = {
  readonly endpoint: string;
  readonly port: number;
  readonly credentials: { readonly accessKeyId: 'S3RVER'; readonly secretAccessKey: 'S3RVER' };
  createBucket(name: string): Promise<void>;
  stop(): Promise<void>;
};

/**
 * s3rver (an S3 API on the filesystem) on 127.0.0.1, in a directory of its own. `port` 0 or
 * none takes a free port; passing an earlier server's port starts a new, empty one where that
 * one was (a target that was unreachable, then is back).
 */
export async function startS3Server(options: { port?: number } = {}): Promise<S3TestServer> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'cairn-s3rver-'));
  const app = new S3rver({ directory, silent: true });
  // Our own http.Server rather than s3rver's run(): run() never settles on a listen error
  // (EADDRINUSE arrives as an 'error' event it does not listen to), and stop() must be able
  // to drop the SDK's kept-alive connections.
  const server = createServer(withMultipartAndSignatures(app, 'S3RVER'));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    app.logger.close();
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  let stopped = false;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    async createBucket(name) {
      await app.store.putBucket(name);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      const closed = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      server.closeAllConnections();
      await closed;
      app.logger.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

const xml = (res: ServerResponse, status: number, body: string) => {
  res.writeHead(status, { 'Content-Type': 'application/xml' }).end(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`);
};
const s3Error = (res: ServerResponse, status: number, code: string, message: string) => xml(res, status, `<Error><Code>${code}</Code><Message>${message}</Message></Error>`);

/**
 * What s3rver 3.7 lacks and the direct uploads need (issue 25): it checks no SigV4 signature
 * (s3-sigv4.ts does, for presigned URLs), and has no ListParts or AbortMultipartUpload.
 * Both are answered here from s3rver's own multipart directory (`<upload id>/<part>` files
 * with a `.md5` beside each), the way S3 answers them; the rest goes to s3rver.
 */
function withMultipartAndSignatures(app: S3rverApp, secretAccessKey: string): (req: IncomingMessage, res: ServerResponse) => void {
  const s3rver = app.callback();
  return (req, res) => {
    if (isPresigned(req)) {
      const check = checkPresigned(req, secretAccessKey);
      if (!check.ok) {
        req.resume();
        s3Error(res, 403, check.code, check.message);
        return;
      }
    }
    const url = new URL(req.url ?? '/', 'http://s3');
    const uploadId = url.searchParams.get('uploadId');
    const [, bucket = '', ...keyParts] = url.pathname.split('/');
    const listing = req.method === 'GET' && uploadId !== null;
    const aborting = req.method === 'DELETE' && uploadId !== null;
    // s3rver would make the directory of an upload that is gone again; S3 refuses the part.
    const partOfGone = req.method === 'PUT' && uploadId !== null;
    if (!listing && !aborting && !partOfGone) {
      s3rver(req, res);
      return;
    }
    const dir = path.join(app.store.getResourcePath(bucket, undefined, 'uploads'), uploadId);
    void (async () => {
      const names = await readdir(dir).catch(() => null);
      if (names === null) {
        req.resume();
        return s3Error(res, 404, 'NoSuchUpload', 'The specified upload does not exist.');
      }
      if (partOfGone) return s3rver(req, res);
      if (aborting) {
        await rm(dir, { recursive: true, force: true });
        res.writeHead(204).end();
        return;
      }
      const numbers = names.filter((n) => /^\d+$/.test(n)).map(Number).sort((a, b) => a - b);
      const marker = Number(url.searchParams.get('part-number-marker') ?? '0');
      const max = Number(url.searchParams.get('max-parts') ?? '1000');
      const page = numbers.filter((n) => n > marker).slice(0, max);
      const truncated = numbers.filter((n) => n > marker).length > page.length;
      const parts = await Promise.all(
        page.map(async (n) => {
          const [info, md5] = await Promise.all([stat(path.join(dir, String(n))), readFile(path.join(dir, `${n}.md5`), 'utf8')]);
          return `<Part><PartNumber>${n}</PartNumber><LastModified>${info.mtime.toISOString()}</LastModified><ETag>"${md5}"</ETag><Size>${info.size}</Size></Part>`;
        }),
      );
      xml(
        res,
        200,
        `<ListPartsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>${bucket}</Bucket><Key>${decodeURIComponent(keyParts.join('/'))}</Key><UploadId>${uploadId}</UploadId>` +
          `<PartNumberMarker>${marker}</PartNumberMarker><NextPartNumberMarker>${page.at(-1) ?? marker}</NextPartNumberMarker><MaxParts>${max}</MaxParts><IsTruncated>${truncated}</IsTruncated>${parts.join('')}</ListPartsResult>`,
      );
    })().catch((error: unknown) => s3Error(res, 500, 'InternalError', String(error)));
  };
}
