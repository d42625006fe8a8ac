import { createTestDatabase as createDatabase, dropTestDatabase, TEST_POSTGRES_URL, testPool } from '@appcat/testing';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { applyMigrations } from '../../src/migrate/apply-migrations.js';

export interface TestDatabase {
  url: string;
  name: string;
  pool: pg.Pool;
  drop(): Promise<void>;
}

export function uniqueDatabaseUrl(suite: string): { url: string; name: string } {
  const name = `payments_${suite}_${randomBytes(4).toString('hex')}`;
  return { url: `${TEST_POSTGRES_URL}/${name}`, name };
}

/** A freshly migrated database of its own for one suite, with a pool on it, dropped afterwards. */
export async function createTestDatabase(suite: string): Promise<TestDatabase> {
  const database = await createDatabase(`payments_${suite}`, applyMigrations);
  const pool = testPool(database.url, 4);
  return {
    url: database.url,
    name: database.name,
    pool,
    drop: async () => {
      await pool.end();
      await database.drop();
    },
  };
}

export const dropDatabase = dropTestDatabase;
