import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { QueueGroup, Subject } from '@appcat/contracts';
import { freePort, waitForPort } from '@appcat/testing';
import { repoPath } from '../src/repo.js';

/**
 * k8s/nats holds the production NATS configuration; its authorization.conf is the only thing keeping
 * the gateway off payments.admin.>. These tests run a real nats-server with that file and try every
 * subject of the wire contract as each service's user.
 */
const NATS_SERVER =
  ['/usr/sbin/nats-server', '/usr/local/bin/nats-server', '/usr/bin/nats-server'].find((path) => existsSync(path)) ??
  'nats-server';
const PASSWORDS = {
  GATEWAY_NATS_PASSWORD: 'gateway-test-password',
  PAYMENTS_NATS_PASSWORD: 'payments-test-password',
  CATALOG_NATS_PASSWORD: 'catalog-test-password',
  ADMIN_NATS_PASSWORD: 'admin-test-password',
};
const USERS = {
  gateway: PASSWORDS.GATEWAY_NATS_PASSWORD,
  payments: PASSWORDS.PAYMENTS_NATS_PASSWORD,
  catalog: PASSWORDS.CATALOG_NATS_PASSWORD,
  admin: PASSWORDS.ADMIN_NATS_PASSWORD,
};
const subjects: string[] = Object.values(Subject);
const adminSubjects = subjects.filter((subject) => subject.startsWith('payments.admin.'));
const serviceSubjects = subjects.filter((subject) => !adminSubjects.includes(subject));

let dir: string;
let server: ChildProcess;
let url: string;
const connections: NatsConnection[] = [];
/** Subjects the payments and catalog replicas received, to prove a refused publish never arrived. */
const received: string[] = [];

async function as(user: keyof typeof USERS): Promise<NatsConnection> {
  const connection = await connect({ servers: [url], user, pass: USERS[user], reconnect: false, timeout: 15_000 });
  connections.push(connection);
  return connection;
}

/** The permission errors the server reports to a connection while `act` runs. */
async function violations(connection: NatsConnection, act: () => void): Promise<string[]> {
  const seen: string[] = [];
  void (async () => {
    for await (const status of connection.status()) if (status.type === 'error') seen.push(String(status.error));
  })();
  act();
  await connection.flush().catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 100));
  return seen;
}

/**
 * The reply, or the error's message: a permissions violation names the subject. It comes at once; the
 * timeout only bounds a request nobody answers, far above a loaded machine's round trip.
 */
async function request(connection: NatsConnection, subject: string): Promise<string> {
  try {
    return (await connection.request(subject, 'ping', { timeout: 15_000 })).string();
  } catch (error) {
    return (error as Error).message;
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'nats-authorization-'));
  copyFileSync(repoPath('k8s/nats/authorization.conf'), join(dir, 'authorization.conf'));
  const port = await freePort();
  // Loopback only and no cluster routes: only the authorization under test comes from the repository.
  writeFileSync(join(dir, 'server.conf'), `listen: 127.0.0.1:${port}\ninclude ./authorization.conf\n`);
  server = spawn(NATS_SERVER, ['-c', join(dir, 'server.conf')], {
    env: { ...process.env, ...PASSWORDS },
    stdio: 'ignore',
  });
  await waitForPort(port);
  url = `nats://127.0.0.1:${port}`;

  // Stand-ins for payments and catalog, subscribed as the services do: queue groups on their subjects.
  const payments = await as('payments');
  const catalog = await as('catalog');
  for (const subject of subjects) {
    const [connection, queue] = subject.startsWith('catalog.')
      ? [catalog, QueueGroup.Catalog]
      : [payments, QueueGroup.Payments];
    connection.subscribe(subject, {
      queue,
      callback: (_error, message) => {
        received.push(subject);
        message.respond(`answered ${subject}`);
      },
    });
  }
  await Promise.all([payments.flush(), catalog.flush()]);
});

afterAll(async () => {
  await Promise.allSettled(connections.map((connection) => connection.close()));
  server?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

describe('k8s/nats authorization', () => {
  it('is a valid server configuration, cluster and all', () => {
    const check = spawnSync(NATS_SERVER, ['-t', '-c', repoPath('k8s/nats/nats-server.conf')], {
      env: { ...process.env, ...PASSWORDS, NATS_SERVER_NAME: 'nats-0', NATS_ROUTE_PASSWORD: 'route-test-password' },
      encoding: 'utf8',
    });
    expect({ status: check.status, output: `${check.stdout}${check.stderr}`.trim() }).toEqual({
      status: 0,
      output: expect.stringMatching(/configuration file .*nats-server\.conf is valid/),
    });
  });

  it('refuses a client without credentials', async () => {
    await expect(connect({ servers: [url], reconnect: false, timeout: 15_000 })).rejects.toThrow(
      /Authorization Violation/,
    );
  });

  it('lets the gateway call every payments and catalog subject that is not admin', async () => {
    const gateway = await as('gateway');
    expect(serviceSubjects.length).toBeGreaterThan(3);
    for (const subject of serviceSubjects) expect(await request(gateway, subject)).toBe(`answered ${subject}`);
  });

  it('refuses the gateway every admin subject, which payments then never receives', async () => {
    const gateway = await as('gateway');
    expect(adminSubjects.length).toBeGreaterThan(0);
    for (const subject of adminSubjects) {
      expect(await request(gateway, subject)).toMatch(
        new RegExp(`Permissions Violation for Publish to "${subject.replace(/\./g, '\\.')}"`),
      );
      gateway.publish(subject, 'fire and forget');
    }
    await gateway.flush().catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received.filter((subject) => adminSubjects.includes(subject))).toEqual([]);
  });

  it('does not let the gateway listen in on payments requests', async () => {
    const gateway = await as('gateway');
    expect(await violations(gateway, () => gateway.subscribe('payments.>'))).toEqual([
      expect.stringMatching(/Permissions Violation for Subscription to "payments\.>"/),
    ]);
  });

  it('lets the admin user call the admin subjects and nothing else', async () => {
    const admin = await as('admin');
    for (const subject of adminSubjects) expect(await request(admin, subject)).toBe(`answered ${subject}`);
    expect(await request(admin, Subject.CreditsDebit)).toMatch(/Permissions Violation for Publish/);
    expect(await request(admin, Subject.CatalogFetch)).toMatch(/Permissions Violation for Publish/);
  });

  it('lets payments and catalog answer requests but publish nothing of their own', async () => {
    const payments = await as('payments');
    const catalog = await as('catalog');
    expect(await violations(payments, () => payments.publish(Subject.AdminKeysCreate, 'forged'))).toEqual([
      expect.stringMatching(/Permissions Violation for Publish to "payments\.admin\.keys\.create"/),
    ]);
    expect(await violations(catalog, () => catalog.publish(Subject.CreditsDebit, 'forged'))).toEqual([
      expect.stringMatching(/Permissions Violation for Publish to "payments\.credits\.debit"/),
    ]);
    // Answering works: every request in the tests above was answered by these two users.
    expect(received).toEqual(
      expect.arrayContaining([Subject.CreditsDebit, Subject.CatalogFetch, Subject.AdminKeysRevoke]),
    );
  });
});
