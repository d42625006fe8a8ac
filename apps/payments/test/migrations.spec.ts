import { cp, mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testPool } from '@appcat/testing';
import type pg from 'pg';
import {
  applyMigrations,
  DEFAULT_MIGRATIONS_DIR,
  migrationChecksum,
  MigrationError,
  readLocalMigrations,
} from '../src/migrate/apply-migrations.js';
import { databaseShape, declaredShape } from './support/schema-shape.js';
import { dropDatabase, uniqueDatabaseUrl } from './support/test-database.js';

const SCHEMA_PATH = fileURLToPath(new URL('../../../prisma/schema.prisma', import.meta.url));

describe('migrations', () => {
  const databases: string[] = [];
  const fresh = (suite: string) => {
    const target = uniqueDatabaseUrl(suite);
    databases.push(target.name);
    return target;
  };
  const withPool = async <T>(url: string, use: (pool: pg.Pool) => Promise<T>): Promise<T> => {
    const pool = testPool(url, 2);
    try {
      return await use(pool);
    } finally {
      await pool.end();
    }
  };

  afterAll(async () => {
    for (const name of databases) await dropDatabase(name);
  });

  it('produce exactly the database schema.prisma declares', async () => {
    const { url } = fresh('shape');
    await applyMigrations(url);
    const declared = declaredShape(await readFile(SCHEMA_PATH, 'utf8'));
    const migrated = await withPool(url, databaseShape);
    expect(migrated).toEqual(declared);
    // Guards against a comparison that compares nothing.
    expect(Object.keys(declared.tables).sort()).toEqual(['api_keys', 'credit_debits', 'top_ups', 'x402_settlements']);
    expect(declared.tables.api_keys.columns.topped_up_micros).toEqual({
      type: 'bigint',
      nullable: false,
      default: '0',
    });
  });

  it('notice when schema.prisma drifts from the migrations', async () => {
    const { url } = fresh('drift');
    await applyMigrations(url);
    const migrated = await withPool(url, databaseShape);
    const schema = await readFile(SCHEMA_PATH, 'utf8');
    const drifts = [
      schema.replace('@db.VarChar(12)', '@db.VarChar(16)'),
      schema.replace('  route        String\n', '  route        String?\n'),
      schema.replace('@@index([prefix], map: "api_keys_prefix_idx")', ''),
      schema.replace('  x402\n', '  x402\n  card\n'),
      schema.replace(
        'onDelete: Restrict, onUpdate: Cascade)\n\n  @@index([apiKeyId, chargedAt]',
        'onDelete: Cascade, onUpdate: Cascade)\n\n  @@index([apiKeyId, chargedAt]',
      ),
      schema.replace('  note         String?\n', '  note         String?\n  memo         String?\n'),
    ];
    for (const drifted of drifts) {
      expect(drifted).not.toBe(schema);
      expect(migrated).not.toEqual(declaredShape(drifted));
    }
    // And the other way round: a change made to the database alone.
    const declared = declaredShape(schema);
    await withPool(url, async (pool) => {
      await pool.query('CREATE INDEX credit_debits_route_idx ON credit_debits (route)');
      expect(await databaseShape(pool)).not.toEqual(declared);
      await pool.query('DROP INDEX credit_debits_route_idx');
      await pool.query("ALTER TABLE top_ups ALTER COLUMN note SET DEFAULT ''");
      expect(await databaseShape(pool)).not.toEqual(declared);
    });
  });

  it('create the database, record each migration as Prisma does, and are idempotent', async () => {
    const { url, name } = fresh('idempotent');
    const first = await applyMigrations(url);
    const local = await readLocalMigrations();
    expect(first).toEqual({ createdDatabase: true, applied: local.map((m) => m.name), alreadyApplied: [] });
    const second = await applyMigrations(url);
    expect(second).toEqual({ createdDatabase: false, applied: [], alreadyApplied: local.map((m) => m.name) });
    await withPool(url, async (pool) => {
      const { rows } = await pool.query('SELECT * FROM _prisma_migrations ORDER BY started_at');
      expect(rows).toHaveLength(local.length);
      for (const [i, row] of rows.entries()) {
        const script = await readFile(join(DEFAULT_MIGRATIONS_DIR, local[i].name, 'migration.sql'));
        expect(row).toMatchObject({
          migration_name: local[i].name,
          checksum: migrationChecksum(script.toString('utf8')),
          logs: null,
          rolled_back_at: null,
          applied_steps_count: 1,
        });
        expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
        expect(row.finished_at.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
      }
      // Prisma's table definition, so `prisma migrate deploy` can take over this database.
      const columns = await pool.query(
        `SELECT column_name, data_type, character_maximum_length, is_nullable FROM information_schema.columns
         WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
      );
      expect(columns.rows.map((c) => [c.column_name, c.data_type, c.character_maximum_length, c.is_nullable])).toEqual([
        ['id', 'character varying', 36, 'NO'],
        ['checksum', 'character varying', 64, 'NO'],
        ['finished_at', 'timestamp with time zone', null, 'YES'],
        ['migration_name', 'character varying', 255, 'NO'],
        ['logs', 'text', null, 'YES'],
        ['rolled_back_at', 'timestamp with time zone', null, 'YES'],
        ['started_at', 'timestamp with time zone', null, 'NO'],
        ['applied_steps_count', 'integer', null, 'NO'],
      ]);
    });
    expect(name).toContain('idempotent');
  });

  it('apply once when several migrators race on a missing database', async () => {
    const { url } = fresh('race');
    const migrations = (await readLocalMigrations(DEFAULT_MIGRATIONS_DIR)).length;
    expect(migrations).toBeGreaterThan(1);
    const outcomes = await Promise.all([applyMigrations(url), applyMigrations(url), applyMigrations(url)]);
    expect(outcomes.map((o) => o.applied.length).sort()).toEqual([0, 0, migrations]);
    await withPool(url, async (pool) =>
      expect((await pool.query('SELECT * FROM _prisma_migrations')).rowCount).toBe(migrations),
    );
  });

  describe('with a copy of the migrations', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'payments-migrations-'));
      await cp(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
    });
    afterEach(() => rm(dir, { recursive: true, force: true }));

    it('refuse to run over a migration edited after it was applied', async () => {
      const { url } = fresh('edited');
      await applyMigrations(url, { migrationsDir: dir });
      const [migration] = await readLocalMigrations(dir);
      await writeFile(join(dir, migration.name, 'migration.sql'), `${migration.script}\n-- edited\n`);
      await expect(applyMigrations(url, { migrationsDir: dir })).rejects.toThrow(MigrationError);
    });

    it('roll a failing migration back entirely so the next run retries it', async () => {
      const { url } = fresh('failing');
      await applyMigrations(url, { migrationsDir: dir });
      await mkdir(join(dir, '29991231000000_broken'));
      await writeFile(
        join(dir, '29991231000000_broken', 'migration.sql'),
        'CREATE TABLE half_done (id int);\nSELECT no_such_function();\n',
      );
      await expect(applyMigrations(url, { migrationsDir: dir })).rejects.toThrow(
        /29991231000000_broken failed and was rolled back/,
      );
      await withPool(url, async (pool) => {
        expect((await pool.query(`SELECT to_regclass('half_done') AS t`)).rows[0].t).toBeNull();
        expect((await pool.query('SELECT * FROM _prisma_migrations')).rowCount).toBe(
          (await readLocalMigrations(dir)).length - 1,
        );
      });
    });
  });

  it('leave invariants to CHECK constraints where Prisma cannot state them', async () => {
    const { url } = fresh('checks');
    await applyMigrations(url);
    await withPool(url, async (pool) => {
      const key = await pool.query<{ id: string }>(
        `INSERT INTO api_keys (key_hash, prefix) VALUES (repeat('a', 64), 'ak_123456789') RETURNING id`,
      );
      const id = key.rows[0].id;
      const refused = [
        [`INSERT INTO api_keys (key_hash, prefix) VALUES ('not-a-hash', 'ak_123456789')`, []],
        [`UPDATE api_keys SET spent_micros = -1 WHERE id = $1`, [id]],
        [`INSERT INTO top_ups (api_key_id, amount_micros, method, external_ref) VALUES ($1, 0, 'admin', 'r0')`, [id]],
        [
          `INSERT INTO credit_debits (id, api_key_id, amount_micros, route, charged_at) VALUES ('d', $1, -3000, 'r', now())`,
          [id],
        ],
      ] as const;
      for (const [sql, params] of refused)
        await expect(pool.query(sql, [...params])).rejects.toMatchObject({ code: '23514' });
      await pool.query(
        `INSERT INTO top_ups (api_key_id, amount_micros, method, external_ref) VALUES ($1, 1, 'admin', 'r1')`,
        [id],
      );
      await expect(
        pool.query(
          `INSERT INTO top_ups (api_key_id, amount_micros, method, external_ref) VALUES ($1, 1, 'x402', 'r1')`,
          [id],
        ),
      ).rejects.toMatchObject({
        code: '23505',
      });
    });
  });
});
