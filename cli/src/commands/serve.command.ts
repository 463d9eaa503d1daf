import { Command, Option } from '@commander-js/extra-typings';
import { defineCommand, examples } from '../program/define-command.ts';
import { roles } from '../server/roles.ts';

/** What these commands run on, loaded when one runs: `cairn --help` loads none of it. */
const load = async () => ({ ...(await import('@cairn/platform')), ...(await import('../runtime/resources.ts')), ...(await import('../server/serve.ts')) });


/**
 * `cairn serve [--role ROLE] [--port PORT]`: runs until SIGINT or SIGTERM. Instead of a JSON
 * answer it prints the address it listens on (DECISIONS.md 7), once it listens.
 */
export const serveCommand = defineCommand(
  () =>
    new Command('serve')
      .summary('run the service (prints its address)')
      .description(
        'Runs the service until stopped (Ctrl-C or SIGTERM). Without DATABASE_URL it starts the embedded PostgreSQL under CAIRN_DATA_DIR. Prints "Cairn (ROLE) listening on URL" once it listens.',
      )
      .addOption(new Option('--role <role>', 'what this process runs: all, or one role of a split deployment (README: Deploy)').choices(roles).default('all' as const))
      .option('--port <port>', 'the HTTP port (default: PORT, else 8000)')
      .addHelpText('after', examples('cairn serve', 'cairn serve --role query --port 8001', 'cairn serve --role projector')),
  async (env: NodeJS.ProcessEnv, { options }) => {
    const { loadConfig, openResources, serve } = await load();
    const config = loadConfig(options.port !== undefined ? { ...env, PORT: options.port } : env);
    const resources = await openResources(config);
    // A start that fails after the database is up (the HTTP port taken) stops what it started.
    const running = await serve(resources, options.role).catch(async (error: unknown) => {
      await resources.close();
      throw error;
    });
    if (running.url) process.stdout.write(`Cairn (${options.role}) listening on ${running.url}\n`);
    else process.stdout.write(`Cairn (${options.role}) running\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await running.stop();
    await resources.close();
  },
);
