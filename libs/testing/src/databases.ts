import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The Postgres server the suites create their databases on (trust auth on the machines here). */
export const TEST_POSTGRES_URL = (
  process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres:postgres@127.0.0.1:5432'
).replace(/\/+$/, '');

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * A database of its own for one suite, named `<prefix>_<random>`, prepared by `prepare` (apply the
 * migrations, usually) and dropped, with any connections left, by `drop()`.
 */
export async function createTestDatabase(
  prefix: string,
  prepare: (url: string) => Promise<unknown>,
): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const url = `${TEST_POSTGRES_URL}/${name}`;
  await prepare(url);
  return { url, name, drop: () => dropTestDatabase(name) };
}

/**
 * A pg pool on a test database. `pool.end()` resolves once it has asked its clients to close, not once
 * their backends are gone, so a `DROP DATABASE ... WITH (FORCE)` right after can still terminate one;
 * the FATAL it sends then reaches the pool as an idle client's error, which without a listener is an
 * unhandled error that fails whichever test is running.
 */
export function testPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', () => undefined);
  return pool;
}

export async function dropTestDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: `${TEST_POSTGRES_URL}/postgres` });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
