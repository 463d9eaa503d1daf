import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples } from '../program/define-command.ts';
import type { Resources } from '../runtime/resources.ts';

/** `cairn migrate`: opening the resources applies the migrations; nothing else to do. */
export const migrateCommand = defineCommand(
  () =>
    new Command('migrate')
      .summary('apply database migrations; prints {"migrated": true}')
      .description('Applies the database migrations (every start does too) and sets up what the service needs in the database. Prints {"migrated": true}.')
      .addHelpText('after', examples('cairn migrate', 'DATABASE_URL=postgres://cairn@db.example.org/cairn npx cairn migrate')),
  async (_resources: Resources) => ({ migrated: true }),
);
