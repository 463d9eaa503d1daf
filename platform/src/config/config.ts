import path from 'node:path';
import { z } from 'zod';

const optionalUrl = (schemes: readonly string[]) =>
  z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .refine((v) => v === undefined || schemes.some((s) => v.startsWith(`${s}://`)), {
      message: `must start with ${schemes.map((s) => `${s}://`).join(' or ')}`,
    });

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const environmentSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: optionalUrl(['postgres', 'postgresql']),
  REDIS_URL: optionalUrl(['redis', 'rediss']),
  EVENTSTORE_URL: optionalUrl(['esdb', 'esdb+discover', 'kurrentdb', 'kurrentdb+discover']),
  CAIRN_DATA_DIR: z.string().min(1).default('./data'),
  CAIRN_PUBLIC_URL: optionalUrl(['http', 'https']),
  CAIRN_CONSISTENCY_TIMEOUT_MS: positiveInt(5000),
  CAIRN_BODY_LIMIT_BYTES: positiveInt(1_048_576),
  CAIRN_ACCESS_TOKEN_TTL_SECONDS: positiveInt(3600),
  CAIRN_EMBEDDED_PG_PORT: positiveInt(54329),
  CAIRN_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
});

export type Config = {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string | undefined;
  readonly redisUrl: string | undefined;
  readonly eventStoreUrl: string | undefined;
  readonly dataDir: string;
  readonly publicUrl: string;
  readonly consistencyTimeoutMs: number;
  readonly bodyLimitBytes: number;
  readonly accessTokenTtlSeconds: number;
  readonly embeddedPgPort: number;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parsed once at start and passed down; a bad value stops the process with its name. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    eventStoreUrl: e.EVENTSTORE_URL,
    dataDir: path.resolve(e.CAIRN_DATA_DIR),
    publicUrl: (e.CAIRN_PUBLIC_URL ?? `http://${e.HOST}:${e.PORT}`).replace(/\/+$/, ''),
    consistencyTimeoutMs: e.CAIRN_CONSISTENCY_TIMEOUT_MS,
    bodyLimitBytes: e.CAIRN_BODY_LIMIT_BYTES,
    accessTokenTtlSeconds: e.CAIRN_ACCESS_TOKEN_TTL_SECONDS,
    embeddedPgPort: e.CAIRN_EMBEDDED_PG_PORT,
    logLevel: e.CAIRN_LOG_LEVEL,
  };
}
