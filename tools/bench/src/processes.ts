import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is tools/bench/dist/processes.js once built). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** package.json's `config`: how our services are started as deployed. */
function deployedConfig(): { serviceNodeOptions?: string; serviceEnvironment?: Record<string, string> } {
  return (JSON.parse(readFileSync(repoPath('package.json'), 'utf8')) as { config?: object }).config ?? {};
}

/**
 * The node options our services are deployed with (package.json `config.serviceNodeOptions`, which the
 * image's, Compose's and Kubernetes' service commands and `npm start` carry too): the bench runs them as
 * deployed.
 */
export function deployedServiceNodeArgs(): string[] {
  return (deployedConfig().serviceNodeOptions ?? '').split(/\s+/).filter((arg) => arg !== '');
}

/** The environment our services are deployed with (package.json `config.serviceEnvironment`, which the image sets too). */
export function deployedServiceEnvironment(): Record<string, string> {
  return deployedConfig().serviceEnvironment ?? {};
}

/** A node process the bench started, with the tail of its output for error messages. */
export class NodeProcess {
  private readonly tail: string[] = [];
  readonly exited: Promise<string>;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        this.tail.push(line);
        if (this.tail.length > 40) this.tail.shift();
      });
    }
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? `exit ${code}`)));
  }

  /** Starts `node [nodeArgs] script` with the environment added to this process's. */
  static start(name: string, script: string, env: Record<string, string>, nodeArgs: string[] = []): NodeProcess {
    const child = spawn(process.execPath, [...nodeArgs, script], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new NodeProcess(name, child);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  output(): string {
    return this.tail.join('\n');
  }

  /** Resolves with the first output line matching `pattern`. */
  waitForLine(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.name} printed no ${pattern} within ${timeoutMs} ms:\n${this.output()}`)),
        timeoutMs,
      );
      const onLine = (line: string) => {
        const match = line.match(pattern);
        if (match) {
          clearTimeout(timer);
          resolve(match);
        }
      };
      for (const stream of [this.child.stdout!, this.child.stderr!])
        createInterface({ input: stream }).on('line', onLine);
      void this.exited.then((how) => {
        clearTimeout(timer);
        reject(new Error(`${this.name} ended (${how}) before it was ready:\n${this.output()}`));
      });
    });
  }

  /** Polls `url` until it answers 200; fails early if the process ends. */
  async waitReady(url: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`${this.name} ended before it was ready:\n${this.output()}`);
      try {
        if ((await fetch(url)).status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline)
        throw new Error(`${this.name}: ${url} not ready after ${timeoutMs} ms:\n${this.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 5_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Path of a built script of this repository, e.g. dist("apps/gateway/dist/main.js"). */
export function repoPath(relative: string): string {
  return `${ROOT}${relative}`;
}
