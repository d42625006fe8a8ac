import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { applyMigrations } from '../../src/migrate/apply-migrations.js';

const SERVER_URL = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432';

export interface TestDatabase {
  url: string;
  name: string;
  pool: pg.Pool;
  drop(): Promise<void>;
}

export function uniqueDatabaseUrl(suite: string): { url: string; name: string } {
  const name = `payments_${suite}_${randomBytes(4).toString('hex')}`;
  return { url: `${SERVER_URL}/${name}`, name };
}

/** A freshly migrated database of its own for one suite, dropped afterwards. */
export async function createTestDatabase(suite: string): Promise<TestDatabase> {
  const { url, name } = uniqueDatabaseUrl(suite);
  await applyMigrations(url);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  return {
    url,
    name,
    pool,
    drop: async () => {
      await pool.end();
      await dropDatabase(name);
    },
  };
}

export async function dropDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: `${SERVER_URL}/postgres` });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
