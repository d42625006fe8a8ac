import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { applyMigrations, CreditKeyspace, createPaymentsApp, readPaymentsConfig } from '@appcat/payments';
import {
  createTestDatabase,
  freePort,
  type ManagedProcess,
  startNatsServer,
  startRedisServer,
  type TestDatabase,
} from '@appcat/testing';
import { jest } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';

jest.setTimeout(60_000);

const CLI = fileURLToPath(new URL('../dist/main.js', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The built CLI as an operator or a script runs it. */
function admin(args: string[], natsUrl: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH, NATS_URL: natsUrl, NATS_REQUEST_TIMEOUT_MS: '3000' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Exactly one JSON object on stdout. */
function jsonOf(run: Run): Record<string, unknown> {
  expect(run.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

describe('admin CLI against a running payments service', () => {
  let nats: ManagedProcess;
  let redis: ManagedProcess;
  let app: INestMicroservice;
  let database: TestDatabase;

  beforeAll(async () => {
    [nats, redis] = await Promise.all([startNatsServer(), startRedisServer()]);
    database = await createTestDatabase('admin_cli', applyMigrations);
    const databaseUrl = database.url;
    app = await createPaymentsApp(
      readPaymentsConfig({
        NATS_URL: nats.url,
        REDIS_URL: redis.url,
        DATABASE_URL: databaseUrl,
        NATS_SHUTDOWN_GRACE_MS: '50',
        OPS_PORT: '0',
      }),
      { logger: false },
    );
    await app.listen();
  });

  afterAll(async () => {
    await app.close();
    await Promise.all([nats.stop(), redis.stop()]);
    await database.drop();
  });

  it('creates, shows, revokes and shows a key again, as JSON', async () => {
    const create = await admin(['keys', 'create', '--credit', '5', '--note', 'for the e2e test', '--json'], nats.url);
    expect(create.code).toBe(0);
    const created = jsonOf(create);
    expect(Object.keys(created).sort()).toEqual(['balance', 'id', 'key', 'prefix']);
    expect(created.balance).toBe('5.000000');
    expect(created.key).toMatch(/^ak_[1-9A-HJ-NP-Za-km-z]{40,44}$/);
    expect(created.prefix).toBe((created.key as string).slice(0, 12));
    expect(create.stderr).toMatch(/shown only this once/);

    const shown = await admin(['keys', 'show', created.prefix as string, '--json'], nats.url);
    expect(shown.code).toBe(0);
    expect(jsonOf(shown)).toMatchObject({
      id: created.id,
      prefix: created.prefix,
      status: 'active',
      revokedAt: null,
      toppedUp: '5.000000',
      spent: '0.000000',
      balance: '5.000000',
      topUps: [{ amount: '5.000000', method: 'admin' }],
    });
    expect(shown.stdout).not.toContain(created.key as string);

    const revoked = await admin(['keys', 'revoke', created.id as string, '--json'], nats.url);
    expect(revoked.code).toBe(0);
    expect(jsonOf(revoked)).toMatchObject({ id: created.id, status: 'revoked', balance: '5.000000' });

    const after = await admin(['keys', 'show', created.key as string, '--json'], nats.url);
    expect(after.code).toBe(0);
    expect(jsonOf(after)).toMatchObject({ id: created.id, status: 'revoked' });
    expect(typeof jsonOf(after).revokedAt).toBe('string');

    const list = await admin(['keys', 'list', '--json'], nats.url);
    expect(list.code).toBe(0);
    expect((jsonOf(list).keys as { id: string }[]).map((key) => key.id)).toContain(created.id);
  });

  it('prints the key once with a warning for people, and readable details', async () => {
    const create = await admin(['keys', 'create', '--credit', '0.003'], nats.url);
    expect(create.code).toBe(0);
    const key = create.stdout.split('\n')[0];
    expect(key).toMatch(/^ak_/);
    expect(create.stdout.split(key).length - 1).toBe(1);
    expect(create.stdout).toContain('balance  USD 0.003000');
    expect(create.stderr).toContain('warning: Store this key now');
    const shown = await admin(['keys', 'show', key], nats.url);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('status     active');
    expect(shown.stdout).toContain('balance    USD 0.003000');
    expect(shown.stdout).not.toContain(key);
  });

  it('exits 3 with a typed JSON error when no key matches', async () => {
    const run = await admin(['keys', 'show', 'ak_zzzzzzzzz', '--json'], nats.url);
    expect(run.code).toBe(3);
    expect(jsonOf(run)).toEqual({ error: { code: 'ADMIN_KEY_NOT_FOUND', message: expect.any(String) } });
  });

  it('exits 2 on usage errors, before contacting anything', async () => {
    for (const args of [
      ['keys', 'create', '--json'],
      ['keys', 'create', '--credit', '1.0000001', '--json'],
      ['keys', 'create', '--credit', '-5', '--json'],
      ['keys', 'show', '--json'],
      ['keys', 'frobnicate', '--json'],
      ['wallets', 'list', '--json'],
      ['keys', 'list', '--credit', '5', '--json'],
      ['reconcile', '--wait', 'soon', '--json'],
      ['reconcile', 'now', '--json'],
      ['keys', 'list', '--wait', '5', '--json'],
    ]) {
      const run = await admin(args, 'nats://127.0.0.1:1');
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(jsonOf(run)).toMatchObject({ error: { code: 'USAGE' } });
    }
    const refused = await admin(['keys', 'show', 'not-a-key', '--json'], nats.url);
    expect(refused.code).toBe(2);
    expect(jsonOf(refused)).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
  });

  it('exits 4 when payments cannot be reached', async () => {
    const noNats = await admin(['keys', 'list', '--json'], `nats://127.0.0.1:${await freePort()}`);
    expect(noNats.code).toBe(4);
    expect(jsonOf(noNats)).toMatchObject({
      error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/^cannot connect to NATS at /) },
    });
    const emptyNats = await startNatsServer();
    try {
      const noPayments = await admin(['keys', 'list', '--json'], emptyNats.url);
      expect(noPayments.code).toBe(4);
      expect(jsonOf(noPayments)).toMatchObject({
        error: { code: 'SERVICE_UNAVAILABLE', message: 'payments service unavailable' },
      });
    } finally {
      await emptyNats.stop();
    }
  });

  it('reconciles: exit 0 and a summary when the books are exact, 6 and a per-key table when Redis holds less than it should', async () => {
    const create = await admin(['keys', 'create', '--credit', '2', '--json'], nats.url);
    const created = jsonOf(create) as { key: string; prefix: string };
    const exact = await admin(['reconcile', '--wait', '5'], nats.url);
    expect({ code: exact.code, stdout: exact.stdout }).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^EXACT {2}\d+ keys checked/),
    });

    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update(created.key).digest('hex');
    const redisClient = new (await import('ioredis')).Redis(redis.url);
    const balanceKey = new CreditKeyspace('credit:ledger', 1).keyOf(hash);
    await redisClient.hincrby(balanceKey, 'bal', -3000);
    try {
      const short = await admin(['reconcile', '--wait', '0'], nats.url);
      expect(short.code).toBe(6);
      expect(short.stdout).toMatch(
        new RegExp(
          `${created.prefix}\\s+short\\s+2\\.000000\\s+0\\.000000\\s+0\\s+0\\.000000\\s+2\\.000000\\s+1\\.997000\\s+-0\\.003000`,
        ),
      );
      const json = jsonOf(await admin(['reconcile', '--wait', '0', '--json'], nats.url));
      expect(json).toMatchObject({
        exact: false,
        differences: [{ prefix: created.prefix, status: 'short', difference: '-0.003000' }],
      });
    } finally {
      await redisClient.hincrby(balanceKey, 'bal', 3000);
      redisClient.disconnect();
    }
  });

  it('prints help with the exit codes', async () => {
    const run = await admin(['--help'], nats.url);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('exit codes:');
  });
});
