import { UsageError } from './commands/args.ts';
import { PrintedOutput } from './commands/printed-output.ts';
import { ReportedFailure } from './commands/reported-failure.ts';
import { buildProgram, type Runners } from './program/program.ts';
import { Answered, quiet } from './program/usage-errors.ts';

/** A command's answer: one JSON object, or text it wrote itself (an audit table, JSON lines). */
function print(result: unknown): void {
  process.stdout.write(result instanceof PrintedOutput ? result.text : `${JSON.stringify(result)}\n`);
}

const runners: Runners = {
  async resources(run) {
    // Loaded here, when a command runs: `cairn --help` builds the command tree and loads none of the platform.
    const [{ createLogger, loadConfig }, { openResources }] = await Promise.all([import('@cairn/platform'), import('./runtime/resources.ts')]);
    const config = loadConfig();
    const resources = await openResources(config, { logger: createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel), poolSize: 4, queryTimeout: false });
    try {
      print(await run(resources));
    } finally {
      await resources.close();
    }
  },
  async env(run) {
    print(await run(process.env));
  },
  async publicUrl(run) {
    const { loadConfig } = await import('@cairn/platform');
    print(await run(loadConfig().publicUrl));
  },
  async process(run) {
    await run(process.env);
  },
};

/**
 * DECISIONS.md 7: one JSON object on stdout and exit 0, or one line on stderr and exit 2
 * (usage) or 1 (anything else). `--help` and `--version` print on stdout and exit 0.
 */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    const program = buildProgram(runners);
    quiet(program, (text) => process.stdout.write(text));
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof Answered) return 0;
    // A check that found something prints what it found, as any answer, then fails.
    if (error instanceof ReportedFailure) print(error.result);
    process.stderr.write(`cairn: ${await describe(error)}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}

async function describe(error: unknown): Promise<string> {
  if (error instanceof UsageError) return error.message;
  // A usage error is all most failures of a quick command are: the rest of what can fail is loaded only now.
  const [{ DomainError }, { ConfigError }, { StartError }] = await Promise.all([import('@cairn/domain'), import('@cairn/platform'), import('./runtime/start-errors.ts')]);
  if (error instanceof ConfigError || error instanceof StartError) return error.message;
  if (error instanceof DomainError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? (error.message.split('\n')[0] ?? error.name) : String(error);
}
