#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { readConfig } from '@appcat/config';
import { applyMigrations, DEFAULT_MIGRATIONS_DIR } from './apply-migrations.js';
import { readDatabaseUrl } from '../config/payments-config.js';

const USAGE = `usage: node apps/payments/dist/migrate/cli.js [--database-url <url>] [--migrations-dir <dir>]

Applies pending prisma/migrations to the payments database (DATABASE_URL by default), creating the
database if it does not exist. Safe to run concurrently and repeatedly.
Exit codes: 0 up to date, 1 a migration failed or the database is unreachable, 2 usage.`;

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({
      options: {
        'database-url': { type: 'string' },
        'migrations-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const databaseUrl = args['database-url'] ?? readConfig(readDatabaseUrl);
  const outcome = await applyMigrations(databaseUrl, {
    migrationsDir: args['migrations-dir'] ?? DEFAULT_MIGRATIONS_DIR,
    log: (line) => process.stdout.write(`migrate: ${line}\n`),
  });
  process.stdout.write(
    `migrate: database up to date (${outcome.applied.length} applied, ${outcome.alreadyApplied.length} already applied)\n`,
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`migrate: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
