import pino from 'pino';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type Logger = {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** The pino logger underneath, where there is one (request logs are written through it). */
  readonly pino?: pino.Logger;
};

/**
 * Structured JSON lines through pino, on stderr (stdout stays free for the command line's
 * answers), written synchronously so the last lines of a failing process are not lost.
 * Each line: `time` (ISO 8601), `level` (its name), `message`, then the fields.
 */
export function createLogger(level: LogLevel, base: Record<string, unknown> = {}): Logger {
  const instance = pino(
    {
      level,
      base,
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    pino.destination({ dest: 2, sync: true }),
  );
  return {
    debug: (message, fields) => instance.debug(fields ?? {}, message),
    info: (message, fields) => instance.info(fields ?? {}, message),
    warn: (message, fields) => instance.warn(fields ?? {}, message),
    error: (message, fields) => instance.error(fields ?? {}, message),
    pino: instance,
  };
}
