import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binariesIn, cachedCopy, firstClosedDirectory, type Account } from './postgres-binaries.ts';
import { StartError } from './start-errors.ts';

const asRoot = process.getuid?.() === 0;

describe('which directory a user cannot pass through', () => {
  let root: string;
  const other: Account = { name: 'nobody-here', uid: 54_321, gid: 54_321 };
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'cairn-closed-'));
    await chmod(root, 0o755);
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('finds the first directory on the way that is closed to the account, and none on an open path', async () => {
    await mkdir(path.join(root, 'home/project/data'), { recursive: true });
    await chmod(path.join(root, 'home'), 0o700);
    await chmod(path.join(root, 'home/project'), 0o700);
    expect(await firstClosedDirectory(path.join(root, 'home/project/data/postgres'), other)).toEqual({ dir: path.join(root, 'home'), mode: (await stat(path.join(root, 'home'))).mode });
    await chmod(path.join(root, 'home'), 0o711);
    expect((await firstClosedDirectory(path.join(root, 'home/project/data/postgres'), other))?.dir).toBe(path.join(root, 'home/project'));
    await chmod(path.join(root, 'home/project'), 0o701);
    expect(await firstClosedDirectory(path.join(root, 'home/project/data/postgres'), other)).toBeNull();
    // Root passes everywhere.
    await chmod(path.join(root, 'home'), 0o700);
    expect(await firstClosedDirectory(path.join(root, 'home/project/data/postgres'), { name: 'root', uid: 0, gid: 0 })).toBeNull();
  });

  it('reads the owner bits for the owner and the group bits for the group, as the kernel does', async () => {
    const dir = path.join(root, 'owned');
    await mkdir(path.join(dir, 'inside'), { recursive: true });
    // As root, the directory is given to another owner (root itself passes everywhere).
    if (asRoot) await chown(dir, 54_000, 54_000);
    const info = await stat(dir);
    const mine = info.uid;
    // Owner bits closed, others open: the owner is still refused.
    await chmod(dir, 0o077);
    expect((await firstClosedDirectory(path.join(dir, 'inside/x'), { name: 'me', uid: mine, gid: 99_999 }))?.dir).toBe(dir);
    await chmod(dir, 0o710);
    expect(await firstClosedDirectory(path.join(dir, 'inside/x'), { name: 'member', uid: 99_998, gid: info.gid })).toBeNull();
    expect((await firstClosedDirectory(path.join(dir, 'inside/x'), { name: 'stranger', uid: 99_998, gid: 99_997 }))?.dir).toBe(dir);
    await chmod(dir, 0o755);
  });
});

describe.skipIf(!asRoot)('the copy of the binaries root makes for postgres (runs as root only)', () => {
  let root: string;
  const account: Account = { name: 'nobody-here', uid: 54_321, gid: 54_321 };
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'cairn-cache-'));
    await chmod(root, 0o755);
    for (const dir of ['native/bin', 'native/lib', 'native/share']) await mkdir(path.join(root, dir), { recursive: true });
    await writeFile(path.join(root, 'native/bin/postgres'), '#!/bin/sh\n', { mode: 0o755 });
    await writeFile(path.join(root, 'native/bin/initdb'), '#!/bin/sh\n', { mode: 0o755 });
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('copies once per version into a root-owned folder, renamed into place', async () => {
    const cache = path.join(root, 'cache');
    const copy = await cachedCopy(binariesIn(path.join(root, 'native'), '17.0.0'), cache, account);
    expect(copy.dir).toBe(path.join(cache, `postgres-17.0.0-${process.platform}-${process.arch}`));
    expect(existsSync(copy.postgres)).toBe(true);
    expect((await stat(copy.postgres)).mode & 0o777).toBe(0o755);
    expect((await stat(copy.dir)).mode & 0o777).toBe(0o755);
    // Again: the copy is reused.
    await writeFile(path.join(copy.dir, 'marker'), '');
    expect((await cachedCopy(binariesIn(path.join(root, 'native'), '17.0.0'), cache, account)).dir).toBe(copy.dir);
    expect(existsSync(path.join(copy.dir, 'marker'))).toBe(true);
  });

  it('refuses a cache folder that someone else could have written', async () => {
    const cache = path.join(root, 'shared-cache');
    await mkdir(cache, { mode: 0o777 });
    await chmod(cache, 0o777);
    await expect(cachedCopy(binariesIn(path.join(root, 'native'), '17.0.0'), cache, account)).rejects.toThrow(StartError);
    await chmod(cache, 0o755);
    await chown(cache, account.uid, account.gid);
    await expect(cachedCopy(binariesIn(path.join(root, 'native'), '17.0.0'), cache, account)).rejects.toThrow(/must be a directory of root's/);
  });
});
