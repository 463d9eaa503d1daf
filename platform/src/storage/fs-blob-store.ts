import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertSafeKey, BlobNotFoundError, type BlobStore, type StoredObject } from './blob-store.ts';
import { fsMultipart } from './fs-multipart.ts';
import { MeasuringStream } from './measuring-stream.ts';

/**
 * Content bytes in a directory. A write goes to `.partial/` first and is renamed into place
 * once whole, so a reader never sees half an object and a failed write leaves nothing.
 */
export type FsStoreOptions = {
  /**
   * A `.partial` file untouched this long belongs to an upload whose process was killed
   * (a live upload writes to it all the time): the sweep removes it.
   */
  readonly partialMaxAgeMs?: number | undefined;
};

/** The sweep runs with the first write of a process, then at most this often. */
const sweepEveryMs = 10 * 60_000;

export function fsBlobStore(root: string, options: FsStoreOptions = {}): BlobStore {
  const base = path.resolve(root);
  const partials = path.join(base, '.partial');
  const maxAgeMs = options.partialMaxAgeMs ?? 3_600_000;
  let lastSweep = Number.NEGATIVE_INFINITY;
  /** In the background of a write: a failed sweep is tried again next time, it never fails the write. */
  const sweepSometimes = () => {
    const now = Date.now();
    if (now - lastSweep < Math.min(sweepEveryMs, maxAgeMs)) return;
    lastSweep = now;
    void sweepPartials(partials, now - maxAgeMs).catch(() => undefined);
  };
  const fileOf = (key: string) => {
    assertSafeKey(key);
    return path.join(base, ...key.split('/'));
  };

  async function hashFile(file: string): Promise<StoredObject | null> {
    const measuring = new MeasuringStream();
    try {
      await pipeline(createReadStream(file), measuring, async function (source) {
        for await (const _ of source);
      });
    } catch (error) {
      // A directory, or a path through a file, holds no object either (never a 500).
      if (missing(error)) return null;
      throw error;
    }
    return { size: measuring.size, sha256: measuring.digest() };
  }

  async function put(key: string, body: Readable, options: { readonly maxBytes?: number; readonly contentType?: string } = {}): Promise<StoredObject> {
    const target = fileOf(key);
    await mkdir(partials, { recursive: true });
    sweepSometimes();
    const partial = path.join(partials, randomUUID());
    const measuring = new MeasuringStream(options.maxBytes);
    try {
      await pipeline(body, measuring, createWriteStream(partial, { flags: 'wx' }));
      await mkdir(path.dirname(target), { recursive: true });
      await rename(partial, target);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    return { size: measuring.size, sha256: measuring.digest() };
  }

  return {
    kind: 'fs',
    put,

    inspect: async (key) => hashFile(fileOf(key)),

    async open(key) {
      const file = fileOf(key);
      try {
        const info = await stat(file);
        if (!info.isFile()) throw new BlobNotFoundError(key);
      } catch (error) {
        if (missing(error)) throw new BlobNotFoundError(key);
        throw error;
      }
      return createReadStream(file) as Readable;
    },

    async remove(key) {
      await rm(fileOf(key), { force: true });
    },

    presignedUrl: async () => null,

    multipart: fsMultipart(base, put),
  };
}

/**
 * Errors that mean "no object here": nothing there, a directory, a path through a file, a
 * name longer than the file system allows (no object can have it: issue 23's fuzz run found
 * it a 500), or a loop of links.
 */
function missing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR' || code === 'ENAMETOOLONG' || code === 'ELOOP';
}

/** Removes the `.partial` files last written before `before` (milliseconds since the epoch). */
export async function sweepPartials(dir: string, before: number): Promise<number> {
  let removed = 0;
  for (const name of await readdir(dir).catch(() => [])) {
    const file = path.join(dir, name);
    const info = await stat(file).catch(() => null);
    if (info?.isFile() && info.mtimeMs < before) {
      await rm(file, { force: true });
      removed += 1;
    }
  }
  return removed;
}
