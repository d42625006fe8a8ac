import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { freePort, waitForPort } from './processes.js';

const NATS_SERVER = '/usr/sbin/nats-server';

interface NatsClusterNode {
  port: number;
  routePort: number;
  monitorPort: number;
  process: ChildProcess;
}

/**
 * A private NATS cluster: `size` nats-servers routed to each other (full mesh), on free ports. Clients
 * given every URL fail over to a surviving server when theirs dies.
 */
export class NatsClusterHarness {
  private constructor(private readonly nodes: NatsClusterNode[]) {}

  static async start(size = 3): Promise<NatsClusterHarness> {
    const ports: Omit<NatsClusterNode, 'process'>[] = [];
    for (let i = 0; i < size; i++) ports.push(await freePorts());
    const harness = new NatsClusterHarness([]);
    try {
      for (const [index, own] of ports.entries()) {
        const others = ports.filter((other) => other !== own);
        try {
          harness.nodes.push(await harness.spawn(own, others));
        } catch {
          // Its ports were taken since they were free: fresh ones. It routes to the others itself, so the mesh still forms.
          ports[index] = await freePorts();
          harness.nodes.push(await harness.spawn(ports[index], others));
        }
      }
      await harness.waitForRoutes();
    } catch (error) {
      // Leave no server behind: a live child process keeps the test runner from exiting.
      await harness.stop();
      throw error;
    }
    return harness;
  }

  /** Every server, comma-separated, as NATS_URL takes them. */
  get url(): string {
    return this.urls.join(',');
  }

  get urls(): string[] {
    return this.nodes.map((n) => `nats://127.0.0.1:${n.port}`);
  }

  /** SIGKILL of server `index`, as a crash would. */
  async kill(index: number): Promise<void> {
    const node = this.nodes[index];
    if (node.process.exitCode !== null || node.process.signalCode !== null) return;
    const ended = new Promise((resolve) => node.process.once('exit', resolve));
    node.process.kill('SIGKILL');
    await ended;
  }

  /**
   * Starts a killed server again on its ports, or on fresh ones if another process took them meanwhile
   * (suites on this machine pick free ports all the time); it rejoins the routes, and clients learn its
   * address from the cluster.
   */
  async restart(index: number): Promise<void> {
    await this.kill(index);
    const others = this.nodes.filter((_, other) => other !== index);
    try {
      this.nodes[index] = await this.spawn(this.nodes[index], others);
    } catch {
      this.nodes[index] = await this.spawn(await freePorts(), others);
    }
    await this.waitForRoutes();
  }

  async stop(): Promise<void> {
    await Promise.allSettled(this.nodes.map((_, index) => this.kill(index)));
  }

  /**
   * Until every live server has a route to every other live one (subscriptions then propagate). The
   * deadline guards against routes that never form; it is no measure of speed.
   */
  async waitForRoutes(timeoutMs = 60_000): Promise<void> {
    const live = this.nodes.filter((n) => n.process.exitCode === null && n.process.signalCode === null);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const counts = await Promise.all(
        live.map(async (n) => {
          try {
            const routez = (await (
              await fetch(`http://127.0.0.1:${n.monitorPort}/routez`, { signal: AbortSignal.timeout(5_000) })
            ).json()) as { num_routes: number };
            return routez.num_routes;
          } catch {
            return -1;
          }
        }),
      );
      if (counts.every((count) => count >= live.length - 1)) return;
      if (Date.now() > deadline) throw new Error(`NATS routes not up after ${timeoutMs} ms: ${counts.join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Starts a server routed to `others`; fails if it does not come up as itself (another process holds one of its ports: it exits). */
  private async spawn(
    own: Omit<NatsClusterNode, 'process'>,
    others: Omit<NatsClusterNode, 'process'>[],
  ): Promise<NatsClusterNode> {
    const routes = others.map((n) => `nats://127.0.0.1:${n.routePort}`);
    const name = `appcat-test-${randomUUID()}`;
    const child = spawn(
      NATS_SERVER,
      [
        '-a',
        '127.0.0.1',
        '-p',
        String(own.port),
        '-m',
        String(own.monitorPort),
        '-n',
        name,
        '--cluster_name',
        'appcat-test',
        '--cluster',
        `nats://127.0.0.1:${own.routePort}`,
        '--routes',
        routes.join(','),
      ],
      { stdio: 'ignore' },
    );
    try {
      const exited = new Promise<never>((_, reject) =>
        child.once('exit', (code, signal) =>
          reject(new Error(`nats-server on port ${own.port} ended at start (${signal ?? code})`)),
        ),
      );
      exited.catch(() => undefined);
      await Promise.race([waitForPort(own.port, 30_000), exited]);
      // Whatever answers must be this server, not another process that took the port.
      const varz = await Promise.race([
        fetch(`http://127.0.0.1:${own.monitorPort}/varz`, { signal: AbortSignal.timeout(5_000) }).then(
          (r) => r.json() as Promise<{ server_name?: string }>,
        ),
        exited,
      ]);
      if (varz.server_name !== name) throw new Error(`port ${own.monitorPort} is held by another process`);
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
    return { port: own.port, routePort: own.routePort, monitorPort: own.monitorPort, process: child };
  }
}

async function freePorts(): Promise<Omit<NatsClusterNode, 'process'>> {
  return { port: await freePort(), routePort: await freePort(), monitorPort: await freePort() };
}
