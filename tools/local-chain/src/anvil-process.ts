import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { resolveAnvilBinary } from './anvil-binary.js';

export interface AnvilExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface AnvilProcess {
  rpcUrl: string;
  /** Settles when anvil has exited, whether through stop() or not. */
  exited: Promise<AnvilExit>;
  stop(): Promise<void>;
}

const STDERR_KEPT = 4096;

async function answersJsonRpc(rpcUrl: string): Promise<boolean> {
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    return response.ok && typeof ((await response.json()) as { result?: unknown }).result === 'string';
  } catch {
    return false;
  }
}

/**
 * Spawns anvil listening on host:port and resolves once its JSON-RPC answers. The returned URL is
 * what this process reaches it by: loopback when anvil listens on every interface.
 *
 * The child does not hold this process open: a test whose afterAll never stopped its chain (a
 * timed-out beforeAll, say) must not keep the runner alive, and anvil is killed when this process
 * exits. A long-running owner (the CLI) keeps itself alive.
 */
export async function spawnAnvil(
  host: string,
  port: number,
  chainId: number,
  startTimeoutMs = 15_000,
): Promise<AnvilProcess> {
  const binary = resolveAnvilBinary();
  const child = spawn(binary, ['--host', host, '--port', String(port), '--chain-id', String(chainId), '--quiet'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-STDERR_KEPT)));
  let exit: AnvilExit | undefined;
  let spawnError: Error | undefined;
  const exited = new Promise<AnvilExit>((resolve) => {
    child.once('exit', (code, signal) => resolve((exit = { code, signal })));
    child.once('error', (error) => ((spawnError = error), resolve((exit = { code: null, signal: null }))));
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = async () => {
    process.off('exit', killOnExit);
    if (exit) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(killer);
  };

  const reachableHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const rpcUrl = `http://${reachableHost.includes(':') ? `[${reachableHost}]` : reachableHost}:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (spawnError) {
      process.off('exit', killOnExit);
      throw new Error(`cannot run anvil (${binary}): ${spawnError.message}`);
    }
    if (exit) {
      process.off('exit', killOnExit);
      throw new Error(
        `anvil exited (code ${exit.code}, signal ${exit.signal}) before answering on ${rpcUrl}: ${stderr.trim()}`,
      );
    }
    if (await answersJsonRpc(rpcUrl)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`anvil did not answer on ${rpcUrl} within ${startTimeoutMs} ms: ${stderr.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.unref();
  (child.stderr as Socket).unref();
  return { rpcUrl, exited, stop };
}
