/**
 * What a failed migration's `error` says (docs/storage.md). Whoever reads the asset reads
 * it, so it says what went wrong in the repository, never where the server keeps its files:
 * a system error (`EACCES: permission denied, mkdir '/srv/…'`) becomes a sentence naming its
 * code, and any other message loses its absolute paths. The whole error is still thrown,
 * so the queue and the log keep it for operators.
 */
const systemErrors: Readonly<Record<string, string>> = {
  ENOENT: 'a file or directory of the repository is missing',
  ENOTDIR: 'the repository is not a directory where one is needed',
  EISDIR: 'the repository holds a directory where an object belongs',
  EACCES: 'the repository refused access',
  EPERM: 'the repository refused access',
  EROFS: 'the repository is read-only',
  ENOSPC: 'the repository is out of space',
  EDQUOT: 'the repository is over its disk quota',
  EIO: 'the repository reported an input/output error',
  EMFILE: 'the server had too many files open',
};

/** At most this much of a message is kept: enough to tell the failure, not a dump. */
const maxLength = 500;

const systemCodeOf = (error: unknown): string | undefined => {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const { code } = error;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
};

/** An absolute POSIX or Windows path, where a path starts: at the start, after a space, a quote, a bracket or `=`. */
const absolutePath = /(^|[\s'"`([=])(?:[A-Za-z]:)?[\\/][^\s'"`()[\]]*/g;

export function withoutServerPaths(text: string): string {
  return text.replace(absolutePath, '$1(a server path)');
}

export function migrationFailureMessage(error: unknown): string {
  const code = systemCodeOf(error);
  if (code) return `Storage failed: ${systemErrors[code] ?? 'the repository could not be read or written'} (${code}).`;
  const message = withoutServerPaths(error instanceof Error ? error.message : String(error));
  return message.length > maxLength ? `${message.slice(0, maxLength - 1)}…` : message;
}
