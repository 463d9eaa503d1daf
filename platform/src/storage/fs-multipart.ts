import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isUuid } from '@cairn/domain';
import { BlobTooLargeError, MultipartGoneError, PartSizeError, type BlobStore, type MultipartRef, type MultipartStore, type UploadedPart } from './blob-store.ts';
import { MeasuringStream } from './measuring-stream.ts';

/**
 * Direct uploads on an fs repository: each upload's parts are files of `.uploads/<upload>/`,
 * beside `.partial/` and outside `assets/`, where every key a WRITE_CONTENT holder may record
 * lies. The directory is named by the service's upload id (a UUID), never by anything a
 * client chose. A part is written to a temporary name and renamed, so a listing shows whole
 * parts only; completing streams the parts in order through the store's own `put` (hashed on
 * the way, renamed into place), then removes the directory.
 */
export function fsMultipart(base: string, put: BlobStore['put']): MultipartStore {
  const uploads = path.join(base, '.uploads');
  const dirOf = (ref: MultipartRef) => {
    // The only name from outside that reaches the file system here; the routes pass UUIDs.
    if (!isUuid(ref.uploadId)) throw new Error(`unsafe upload id: ${JSON.stringify(ref.uploadId)}`);
    return path.join(uploads, ref.uploadId.toLowerCase());
  };
  const partFile = (ref: MultipartRef, partNumber: number) => {
    if (!Number.isSafeInteger(partNumber) || partNumber < 1) throw new Error(`bad part number ${partNumber}`);
    return path.join(dirOf(ref), String(partNumber));
  };

  return {
    async create(_key, uploadId) {
      await mkdir(dirOf({ key: '', uploadId, storageUploadId: null }), { recursive: true });
      return null;
    },

    partUrl: async () => null,

    async writePart(ref, partNumber, body, bytes) {
      const target = partFile(ref, partNumber);
      const temporary = path.join(dirOf(ref), `.${partNumber}.${randomUUID()}`);
      const measuring = new MeasuringStream(bytes, { hash: false });
      try {
        // No mkdir: an upload that was aborted (its directory removed) takes no more parts.
        await pipeline(body, measuring, createWriteStream(temporary, { flags: 'wx' }));
        if (measuring.size !== bytes) throw new PartSizeError(bytes, measuring.size);
        await rename(temporary, target);
      } catch (error) {
        await rm(temporary, { force: true });
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new MultipartGoneError();
        if (error instanceof BlobTooLargeError) throw new PartSizeError(bytes, measuring.size);
        throw error;
      }
    },

    async listParts(ref) {
      let names: string[];
      try {
        names = await readdir(dirOf(ref));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      const parts: UploadedPart[] = [];
      for (const name of names) {
        if (!/^[1-9]\d{0,4}$/.test(name)) continue;
        const info = await stat(path.join(dirOf(ref), name)).catch(() => null);
        if (info?.isFile()) parts.push({ partNumber: Number(name), size: info.size });
      }
      return parts.sort((a, b) => a.partNumber - b.partNumber);
    },

    async complete(ref, partCount, options) {
      const files = Array.from({ length: partCount }, (_, i) => partFile(ref, i + 1));
      // One part open at a time; `put` owns the stream and ends it on failure.
      const concatenated = Readable.from(
        (async function* () {
          for (const file of files) yield* createReadStream(file);
        })(),
      );
      let stored;
      try {
        stored = await put(ref.key, concatenated, { contentType: options.contentType });
      } catch (error) {
        // Its parts went meanwhile (an abort, the expiry, another completion).
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new MultipartGoneError();
        throw error;
      }
      await rm(dirOf(ref), { recursive: true, force: true });
      return stored;
    },

    async abort(ref) {
      await rm(dirOf(ref), { recursive: true, force: true });
    },
  };
}

/** Upload directories of an fs repository (for tests and the doctor): the ids of uploads with parts here. */
export async function fsUploadDirectories(base: string): Promise<string[]> {
  return readdir(path.join(base, '.uploads')).catch(() => []);
}
