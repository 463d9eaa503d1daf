import { describe, expect, it } from 'vitest';
import { migrationFailureMessage, withoutServerPaths } from './migration-failure.ts';

describe('a failed migration error', () => {
  it('names a system error by its code, without its path', () => {
    const error = Object.assign(new Error("ENOTDIR: not a directory, mkdir '/srv/cairn/repo/.partial'"), { code: 'ENOTDIR', path: '/srv/cairn/repo/.partial' });
    const message = migrationFailureMessage(error);
    expect(message).toBe('Storage failed: the repository is not a directory where one is needed (ENOTDIR).');
    expect(migrationFailureMessage(Object.assign(new Error('x'), { code: 'EWHATEVER' }))).toBe('Storage failed: the repository could not be read or written (EWHATEVER).');
  });

  it('keeps other messages, less any absolute path; keys and URLs stay', () => {
    expect(withoutServerPaths("cannot open '/var/lib/cairn/x' or C:\\data\\y (see /tmp/z)")).toBe("cannot open '(a server path)' or (a server path) (see (a server path))");
    expect(migrationFailureMessage(new Error('checksum mismatch copying assets/a/b: expected 00'))).toBe('checksum mismatch copying assets/a/b: expected 00');
    expect(withoutServerPaths('GET http://s3.local/bucket/key failed')).toBe('GET http://s3.local/bucket/key failed');
    expect(migrationFailureMessage('x'.repeat(2000))).toHaveLength(500);
  });
});
