import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root: this file is libs/testing/src or libs/testing/dist. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A built service run as its own process, as in production, with everything it prints kept. */
export class ServiceProcess {
  readonly output: string[] = [];
  private readonly child: ChildProcess;
  private readonly exited: Promise<string>;

  constructor(
    readonly name: string,
    script: string,
    env: Record<string, string>,
  ) {
    this.child = spawn(process.execPath, [`${ROOT}${script}`], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [this.child.stdout!, this.child.stderr!])
      stream.on('data', (chunk: Buffer) => this.output.push(chunk.toString()));
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve(signal ?? `exit ${code}`)),
    );
  }

  /**
   * SIGTERM, as Kubernetes sends it; resolves once the process is gone with how it ended: "exit N",
   * or "SIGTERM" for a Nest service, which closes everything and then re-raises the signal.
   */
  terminate(): Promise<string> {
    this.child.kill('SIGTERM');
    return this.exited;
  }

  /** Resolves once the process has ended by itself, with how: "exit N" or the signal. */
  ended(): Promise<string> {
    return this.exited;
  }

  async kill(): Promise<void> {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }
}

/** Polls `url` until it answers 200. */
export async function waitReady(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
