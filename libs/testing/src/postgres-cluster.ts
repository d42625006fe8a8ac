import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitForPort } from './processes.js';

const DEFAULT_BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'];

/**
 * A private PostgreSQL cluster (initdb + postgres) in a temporary directory on a free port, which a test
 * may stop and start at will. Never the machine's own server: other suites and agents use that one.
 * Run as root, it runs as the `postgres` system user (postgres refuses to run as root).
 */
export class PostgresCluster {
  private child: ChildProcess | null = null;

  private constructor(
    private readonly bin: string,
    readonly dataDir: string,
    readonly port: number,
    private readonly user: { uid: number; gid: number } | null,
  ) {}

  static async start(options: { binDir?: string } = {}): Promise<PostgresCluster> {
    const bin =
      options.binDir ?? process.env.POSTGRES_BIN_DIR ?? DEFAULT_BIN_DIRS.find((dir) => existsSync(join(dir, 'initdb')));
    if (!bin) throw new Error(`no PostgreSQL binaries in ${DEFAULT_BIN_DIRS.join(', ')} (set POSTGRES_BIN_DIR)`);
    const user = process.getuid?.() === 0 ? postgresUser() : null;
    const dataDir = mkdtempSync(join(tmpdir(), 'appcat-pg-'));
    if (user) chownSync(dataDir, user.uid, user.gid);
    execFileSync(join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], {
      stdio: 'ignore',
      ...(user ?? {}),
    });
    const cluster = new PostgresCluster(bin, dataDir, await freePort(), user);
    await cluster.startServer();
    return cluster;
  }

  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== null;
  }

  /** Starts the server (again) on the same port and data; resolves once it accepts connections. */
  async startServer(): Promise<void> {
    if (this.child) return;
    const child = spawn(
      join(this.bin, 'postgres'),
      [
        '-D',
        this.dataDir,
        '-p',
        String(this.port),
        '-h',
        '127.0.0.1',
        '-k',
        this.dataDir,
        '-c',
        'fsync=off',
        '-c',
        'max_connections=200',
      ],
      { stdio: 'ignore', ...(this.user ?? {}) },
    );
    this.child = child;
    child.once('exit', () => {
      if (this.child === child) this.child = null;
    });
    await waitForPort(this.port, 20_000);
  }

  /** Stops the server: "fast" closes sessions cleanly, "kill" is a crash (SIGKILL). */
  async stopServer(mode: 'fast' | 'kill' = 'fast'): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) =>
      child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
    );
    child.kill(mode === 'fast' ? 'SIGINT' : 'SIGKILL');
    await exited;
    this.child = null;
  }

  /** Stops the server and deletes its data. */
  async destroy(): Promise<void> {
    await this.stopServer('fast');
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

function postgresUser(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}
