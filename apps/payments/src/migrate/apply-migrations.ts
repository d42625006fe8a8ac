import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** prisma/migrations at the repository root, from src/migrate or dist/migrate alike. */
export const DEFAULT_MIGRATIONS_DIR = fileURLToPath(new URL('../../../../prisma/migrations/', import.meta.url));

/**
 * The key Prisma's schema engine takes with pg_advisory_lock while it migrates, so this runner and
 * `prisma migrate deploy` never migrate the same database at the same time.
 */
const PRISMA_ADVISORY_LOCK_KEY = 72707369;

/** Prisma's own bookkeeping table, created exactly as its schema engine creates it on Postgres. */
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export interface LocalMigration {
  name: string;
  script: string;
  checksum: string;
}

export interface MigrationOutcome {
  createdDatabase: boolean;
  applied: string[];
  alreadyApplied: string[];
}

export class MigrationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

/** Prisma's checksum: SHA-256 (lowercase hex) of the raw bytes of migration.sql. */
export function migrationChecksum(script: string): string {
  return createHash('sha256').update(script, 'utf8').digest('hex');
}

/** Prisma accepts a recorded checksum made before or after git changed the file's line endings. */
function checksumMatches(script: string, recorded: string): boolean {
  return [script, script.replace(/\r\n/g, '\n'), script.replace(/\n/g, '\r\n')].some(
    (variant) => migrationChecksum(variant) === recorded,
  );
}

/** Migrations in Prisma's layout (`<dir>/<timestamp>_<name>/migration.sql`), in the order Prisma applies them. */
export async function readLocalMigrations(migrationsDir: string = DEFAULT_MIGRATIONS_DIR): Promise<LocalMigration[]> {
  const names = (await readdir(migrationsDir)).sort();
  const migrations: LocalMigration[] = [];
  for (const name of names) {
    if (!(await stat(join(migrationsDir, name))).isDirectory()) continue;
    const script = await readFile(join(migrationsDir, name, 'migration.sql'), 'utf8');
    migrations.push({ name, script, checksum: migrationChecksum(script) });
  }
  return migrations;
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Creates the database named in the URL unless it exists; true when it was created. */
async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!database) throw new MigrationError('the database URL names no database');
  const maintenanceUrl = new URL(databaseUrl);
  maintenanceUrl.pathname = '/postgres';
  const client = new pg.Client({ connectionString: maintenanceUrl.toString() });
  await client.connect();
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (existing.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE ${quoteIdentifier(database)}`);
      return true;
    } catch (error) {
      // Another migrator created it between our check and our CREATE (duplicate_database, or the
      // catalog's unique index when both CREATEs ran at once).
      const code = (error as { code?: string }).code;
      if (code === '42P04' || code === '23505') return false;
      throw error;
    }
  } finally {
    await client.end();
  }
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
}

/**
 * Brings the database at `databaseUrl` up to date with prisma/migrations, the way `prisma migrate
 * deploy` would, so either tool can be used on a database the other migrated. Creates the database if
 * it is missing and holds Prisma's advisory lock throughout. Unlike Prisma, each migration runs inside a
 * transaction together with its `_prisma_migrations` row, so a failure leaves nothing behind and the
 * next run simply retries (migrations must therefore be transactional SQL).
 */
export async function applyMigrations(
  databaseUrl: string,
  options: { migrationsDir?: string; log?: (line: string) => void } = {},
): Promise<MigrationOutcome> {
  const log = options.log ?? (() => undefined);
  const migrations = await readLocalMigrations(options.migrationsDir);
  const createdDatabase = await ensureDatabase(databaseUrl);
  if (createdDatabase) log('created the database');

  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK_KEY]);
    await client.query(CREATE_MIGRATIONS_TABLE);
    const { rows } = await client.query<AppliedRow>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL ORDER BY started_at',
    );
    const failed = rows.find((row) => row.finished_at === null);
    if (failed) {
      throw new MigrationError(
        `migration ${failed.migration_name} failed earlier and was not rolled back; resolve it first (prisma migrate resolve)`,
      );
    }
    const applied = new Map(rows.map((row) => [row.migration_name, row.checksum]));
    const outcome: MigrationOutcome = { createdDatabase, applied: [], alreadyApplied: [] };
    for (const migration of migrations) {
      const recorded = applied.get(migration.name);
      if (recorded !== undefined) {
        if (!checksumMatches(migration.script, recorded)) {
          throw new MigrationError(`migration ${migration.name} was modified after it was applied (checksum differs)`);
        }
        outcome.alreadyApplied.push(migration.name);
        continue;
      }
      await applyOne(client, migration);
      outcome.applied.push(migration.name);
      log(`applied ${migration.name}`);
    }
    return outcome;
  } finally {
    // Ending the session releases the advisory lock too; unlocking first keeps the intent explicit.
    await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}

async function applyOne(client: pg.Client, migration: LocalMigration): Promise<void> {
  const id = randomUUID();
  await client.query('BEGIN');
  try {
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count)
       VALUES ($1, $2, $3, clock_timestamp(), 0)`,
      [id, migration.checksum, migration.name],
    );
    // No parameters: pg sends the script with the simple query protocol, which runs every statement.
    await client.query(migration.script);
    await client.query(
      `UPDATE "_prisma_migrations" SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = $1`,
      [id],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw new MigrationError(`migration ${migration.name} failed and was rolled back: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
