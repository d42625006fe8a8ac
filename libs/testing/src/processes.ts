import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Resolves once something accepts TCP connections on the port. */
export async function waitForPort(port: number, timeoutMs = 10_000, host = '127.0.0.1'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => (socket.destroy(), resolve(false)));
      socket.connect(port, host);
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${host}:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface ManagedProcess {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
  /** SIGKILL, as a crash would. */
  kill(): Promise<void>;
}

function findBinary(name: string, candidates: string[]): string {
  for (const path of candidates) if (existsSync(path)) return path;
  return name;
}

async function startServer(
  binary: string,
  args: (port: number) => string[],
  scheme: string,
  fixedPort?: number,
): Promise<ManagedProcess> {
  const port = fixedPort ?? (await freePort());
  const child = spawn(binary, args(port), { stdio: 'ignore' });
  let exited = false;
  child.once('exit', () => (exited = true));
  const ended = () =>
    new Promise<void>((resolve) =>
      exited || child.exitCode !== null ? resolve() : child.once('exit', () => resolve()),
    );
  await waitForPort(port);
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    process: child,
    stop: async () => {
      child.kill('SIGTERM');
      await ended();
    },
    kill: async () => {
      child.kill('SIGKILL');
      await ended();
    },
  };
}

/**
 * A private nats-server (JetStream off) for one test suite; `port` to restart one where it was, and
 * `maxPayloadBytes` for a smaller message limit than NATS's 1 MiB (it has no command-line flag).
 */
export function startNatsServer(port?: number, options: { maxPayloadBytes?: number } = {}): Promise<ManagedProcess> {
  const binary = findBinary('nats-server', [
    '/usr/sbin/nats-server',
    '/usr/local/bin/nats-server',
    '/usr/bin/nats-server',
  ]);
  const config: string[] = [];
  if (options.maxPayloadBytes !== undefined) {
    const file = join(mkdtempSync(join(tmpdir(), 'nats-')), 'nats.conf');
    writeFileSync(file, `max_payload: ${options.maxPayloadBytes}\n`);
    config.push('-c', file);
  }
  return startServer(binary, (port) => [...config, '-a', '127.0.0.1', '-p', String(port)], 'nats', port);
}

/** A private redis-server that keeps nothing on disk, for one test suite; `port` to restart one (empty) where it was. */
export function startRedisServer(port?: number): Promise<ManagedProcess> {
  const binary = findBinary('redis-server', ['/usr/bin/redis-server', '/usr/local/bin/redis-server']);
  return startServer(
    binary,
    (port) => ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', '/tmp'],
    'redis',
    port,
  );
}
