import { spawn } from 'node:child_process';
import { resolveAnvilBinary } from './anvil-binary.js';

export interface AnvilProcess {
  rpcUrl: string;
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
 */
export async function spawnAnvil(host: string, port: number, chainId: number, startTimeoutMs = 15_000): Promise<AnvilProcess> {
  const binary = resolveAnvilBinary();
  const child = spawn(binary, ['--host', host, '--port', String(port), '--chain-id', String(chainId), '--quiet'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-STDERR_KEPT)));
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let spawnError: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => ((exit = { code, signal }), resolve()));
    child.once('error', (error) => ((spawnError = error), resolve()));
  });
  // A test runner that dies without afterAll must not leave anvil holding the port.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = async () => {
    process.off('exit', killOnExit);
    if (exit || spawnError) return;
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
      throw new Error(`anvil exited (code ${exit.code}, signal ${exit.signal}) before answering on ${rpcUrl}: ${stderr.trim()}`);
    }
    if (await answersJsonRpc(rpcUrl)) return { rpcUrl, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`anvil did not answer on ${rpcUrl} within ${startTimeoutMs} ms: ${stderr.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
