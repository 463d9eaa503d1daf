import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

// s3rver ships no types; this is the part of it used here.
type S3rverApp = {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  readonly store: { putBucket(name: string): Promise<unknown> };
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
  const server = createServer(app.callback());
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
