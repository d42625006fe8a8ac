import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitForPort } from './processes.js';

const execFileAsync = promisify(execFile);
/** redis-cli, bounded: a node that stops answering must fail a wait, not hang it. */
const run = (binary: string, args: string[], timeoutMs = 10_000) => execFileAsync(binary, args, { timeout: timeoutMs });
/**
 * How long the harness waits for the cluster to form, fail over or sync: a guard against a cluster that
 * never gets there, not a measure of speed (a loaded 2-core machine is slow at all of it).
 */
const DEADLINE_MS = 120_000;
const REDIS_SERVER = '/usr/bin/redis-server';
const REDIS_CLI = '/usr/bin/redis-cli';

/** One redis-server of a test cluster. */
export interface RedisClusterNode {
  /** Names its nodes.conf, which keeps its cluster identity across restarts (its ports may change). */
  index: number;
  port: number;
  /** The cluster bus port (given explicitly: port + 10000 may be past 65535). */
  busPort: number;
  process: ChildProcess;
}

/** What CLUSTER NODES says about a node. */
export interface RedisNodeRole {
  port: number;
  id: string;
  role: 'master' | 'slave';
  /** For a replica, its primary's id. */
  primaryId: string | null;
  failed: boolean;
  /** For a primary, the slot ranges it serves. */
  slots: [from: number, to: number][];
}

/**
 * A private Redis Cluster: `primaries` primaries with one replica each (Debian's redis-server with
 * cluster-enabled, joined by `redis-cli --cluster create`), nothing on disk, on free ports. A short node
 * timeout makes a replica take over a killed primary within a couple of seconds.
 */
export class RedisClusterHarness {
  private readonly nodes: RedisClusterNode[] = [];

  private constructor(
    private readonly dir: string,
    readonly nodeTimeoutMs: number,
  ) {}

  static async start(options: { primaries?: number; nodeTimeoutMs?: number } = {}): Promise<RedisClusterHarness> {
    const primaries = options.primaries ?? 3;
    const harness = new RedisClusterHarness(
      mkdtempSync(join(tmpdir(), 'appcat-redis-cluster-')),
      options.nodeTimeoutMs ?? 1_000,
    );
    try {
      for (let i = 0; i < primaries * 2; i++) {
        // Ports free a moment ago may have been taken since (suites on this machine pick them all the time).
        const node = await harness
          .spawnNode(i, await freePort(), await freePort())
          .catch(async () => harness.spawnNode(i, await freePort(), await freePort()));
        harness.nodes.push(node);
      }
      await run(
        REDIS_CLI,
        [
          '--cluster',
          'create',
          ...harness.nodes.map((n) => `127.0.0.1:${n.port}`),
          '--cluster-replicas',
          '1',
          '--cluster-yes',
        ],
        DEADLINE_MS,
      );
      await harness.waitUntilHealthy();
      // A replica that never synced refuses to take over (its data counts as infinitely old), so a
      // primary killed before then would leave its slots unserved for good.
      await harness.waitUntilReplicasSynced();
    } catch (error) {
      await harness.stop();
      throw error;
    }
    return harness;
  }

  /** `host:port,…` for REDIS_CLUSTER_NODES. */
  get nodesSetting(): string {
    return this.nodes.map((n) => `127.0.0.1:${n.port}`).join(',');
  }

  get seeds(): { host: string; port: number }[] {
    return this.nodes.map((n) => ({ host: '127.0.0.1', port: n.port }));
  }

  /** The roles as a live node sees them. */
  async roles(): Promise<RedisNodeRole[]> {
    for (const node of this.nodes) {
      if (node.process.exitCode !== null || node.process.signalCode !== null) continue;
      try {
        const { stdout } = await run(REDIS_CLI, ['-p', String(node.port), 'cluster', 'nodes']);
        return stdout
          .trim()
          .split('\n')
          .map((line) => {
            const [id, address, flags, primaryId, , , , , ...ranges] = line.split(' ');
            return {
              id,
              port: Number(address.split('@')[0].split(':')[1]),
              role: flags.includes('master') ? ('master' as const) : ('slave' as const),
              primaryId: primaryId === '-' ? null : primaryId,
              failed: flags.includes('fail'),
              slots: ranges
                .filter((range) => /^\d+(-\d+)?$/.test(range))
                .map((range) => {
                  const [from, to] = range.split('-').map(Number);
                  return [from, to ?? from] as [number, number];
                }),
            };
          });
      } catch {
        continue;
      }
    }
    throw new Error('no Redis Cluster node answers');
  }

  /** The port of the live primary serving a slot. */
  async primaryOf(slot: number): Promise<number> {
    const owner = (await this.roles()).find(
      (r) => r.role === 'master' && !r.failed && r.slots.some(([from, to]) => slot >= from && slot <= to),
    );
    if (!owner) throw new Error(`no live primary serves slot ${slot}`);
    return owner.port;
  }

  /** The live primaries' ports. */
  async primaryPorts(): Promise<number[]> {
    return (await this.roles()).filter((r) => r.role === 'master' && !r.failed).map((r) => r.port);
  }

  /** SIGKILL of one node, as a crash would. */
  async kill(port: number): Promise<void> {
    const node = this.node(port);
    if (node.process.exitCode !== null || node.process.signalCode !== null) return;
    const ended = new Promise((resolve) => node.process.once('exit', resolve));
    node.process.kill('SIGKILL');
    await ended;
  }

  /**
   * Kills a node and starts it again at once with no data but its cluster identity (nodes.conf): a
   * primary back before its replica could take over serves its slots empty, and its replica copies the
   * emptiness (Redis Cluster without persistence). Returns its port: the same, unless another process
   * took it meanwhile (suites on this machine pick free ports all the time); then the node comes back on
   * fresh ports, and the cluster learns its new address from its own gossip.
   */
  async restartEmpty(port: number): Promise<number> {
    await this.kill(port);
    const node = this.node(port);
    let restarted: RedisClusterNode;
    try {
      restarted = await this.spawnNode(node.index, node.port, node.busPort);
    } catch {
      restarted = await this.spawnNode(node.index, await freePort(), await freePort());
    }
    this.nodes[this.nodes.indexOf(node)] = restarted;
    return restarted.port;
  }

  /** Starts a killed node again (it rejoins, as a replica of whoever took over); returns its port, as restartEmpty. */
  async restart(port: number): Promise<number> {
    return this.restartEmpty(port);
  }

  /**
   * Until every slot is served by a live primary (cluster_state:ok on every live node, and no slot
   * left to a killed one) and no live node is marked failed. Right after a kill, before the node
   * timeout, the live nodes still say cluster_state:ok; the slots of the killed primary say otherwise.
   */
  async waitUntilHealthy(timeoutMs = DEADLINE_MS): Promise<void> {
    await this.waitFor(() => this.healthy(), `Redis Cluster not healthy after ${timeoutMs} ms`, timeoutMs);
  }

  /** Until every live replica has completed its sync with its primary (master_link_status:up). */
  async waitUntilReplicasSynced(timeoutMs = DEADLINE_MS): Promise<void> {
    await this.waitFor(
      () => this.replicasSynced(),
      `Redis Cluster replicas not in sync after ${timeoutMs} ms`,
      timeoutMs,
    );
  }

  private async waitFor(condition: () => Promise<boolean>, failure: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await condition()) return;
      if (Date.now() > deadline) throw new Error(failure);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Kills every node (a live child process would keep the test runner from exiting). */
  async stop(): Promise<void> {
    await Promise.allSettled(this.nodes.map((n) => this.kill(n.port)));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async healthy(): Promise<boolean> {
    const live = this.nodes.filter((n) => n.process.exitCode === null && n.process.signalCode === null);
    try {
      for (const node of live) {
        const { stdout } = await run(REDIS_CLI, ['-p', String(node.port), 'cluster', 'info']);
        if (!stdout.includes('cluster_state:ok')) return false;
      }
      const roles = await this.roles();
      const livePorts = new Set(live.map((n) => n.port));
      if (!roles.filter((r) => livePorts.has(r.port)).every((r) => !r.failed)) return false;
      // Every slot served by a live primary: none still assigned to a killed one.
      const served = roles
        .filter((r) => r.role === 'master' && livePorts.has(r.port))
        .reduce((sum, r) => sum + r.slots.reduce((n, [from, to]) => n + to - from + 1, 0), 0);
      return served === 16384;
    } catch {
      return false;
    }
  }

  private async replicasSynced(): Promise<boolean> {
    const live = this.nodes.filter((n) => n.process.exitCode === null && n.process.signalCode === null);
    try {
      for (const node of live) {
        const { stdout } = await run(REDIS_CLI, ['-p', String(node.port), 'info', 'replication']);
        if (stdout.includes('role:slave') && !stdout.includes('master_link_status:up')) return false;
      }
      return true;
    } catch {
      return false;
    }
  }

  private node(port: number): RedisClusterNode {
    const node = this.nodes.find((n) => n.port === port);
    if (!node) throw new Error(`no cluster node on port ${port}`);
    return node;
  }

  /** Starts node `index`; fails if it does not come up as itself on `port` (another process holds it). */
  private async spawnNode(index: number, port: number, busPort: number): Promise<RedisClusterNode> {
    const child = spawn(
      REDIS_SERVER,
      [
        '--port',
        String(port),
        '--cluster-port',
        String(busPort),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(this.dir, `nodes-${index}.conf`),
        '--cluster-node-timeout',
        String(this.nodeTimeoutMs),
        '--save',
        '',
        // Replicas sync at once instead of after diskless replication's default 5 s wait.
        '--repl-diskless-sync-delay',
        '0',
        '--appendonly',
        'no',
        '--dir',
        this.dir,
      ],
      { stdio: 'ignore' },
    );
    try {
      const exited = new Promise<never>((_, reject) =>
        child.once('exit', (code, signal) =>
          reject(new Error(`redis-server on port ${port} ended at start (${signal ?? code})`)),
        ),
      );
      exited.catch(() => undefined);
      await Promise.race([waitForPort(port, 30_000), exited]);
      // Whatever answers on the port must be this process, not another that took the port.
      const { stdout } = await Promise.race([run(REDIS_CLI, ['-p', String(port), 'info', 'server']), exited]);
      if (!stdout.includes(`process_id:${child.pid}\r`) && !stdout.includes(`process_id:${child.pid}\n`))
        throw new Error(`port ${port} is held by another process`);
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
    return { index, port, busPort, process: child };
  }
}
