import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { repoPath } from '../src/repo.js';

/** docker/healthcheck.mjs, the probe every container of the image uses, against a server that answers as told. */
let server: Server;
let base: string;

function probe(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'node',
      [repoPath('docker/healthcheck.mjs'), ...args],
      { env: { PATH: process.env.PATH ?? '', HEALTHCHECK_TIMEOUT_MS: '10000', ...env } },
      (error, _stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stderr }),
    );
  });
}

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/healthz') return void response.writeHead(200).end('{"ok":true}');
    if (request.url === '/readyz') return void response.writeHead(503).end('{"ready":false}');
    if (request.url === '/slow') return void setTimeout(() => response.writeHead(200).end('late'), 30_000).unref();
    if (request.url === '/rpc' && request.method === 'POST') {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        const call = JSON.parse(body) as { method: string; id: number };
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(
            JSON.stringify({ jsonrpc: '2.0', id: call.id, result: call.method === 'eth_chainId' ? '0x2105' : null }),
          );
      });
      return;
    }
    if (request.url === '/not-rpc')
      return void response.writeHead(200).end('{"jsonrpc":"2.0","id":1,"error":{"code":-32601}}');
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('docker/healthcheck.mjs', () => {
  it('is healthy on a 2xx answer', async () => {
    expect(await probe([`${base}/healthz`])).toEqual({ code: 0, stderr: '' });
  });

  it('is unhealthy on a 503, naming the status', async () => {
    const result = await probe([`${base}/readyz`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/unhealthy: .*\/readyz: HTTP 503/);
  });

  it('gives up after its timeout', async () => {
    // /slow answers after 30 s; a 500 ms probe gives up long before (the default is generous so a busy
    // machine's healthy answers are never cut off).
    const started = Date.now();
    expect((await probe([`${base}/slow`], { HEALTHCHECK_TIMEOUT_MS: '500' })).code).toBe(1);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('is unhealthy when nothing listens', async () => {
    expect((await probe(['http://127.0.0.1:1/healthz'])).code).toBe(1);
  });

  it('probes OPS_PORT /healthz by default, else PORT', async () => {
    const port = new URL(base).port;
    expect((await probe([], { OPS_PORT: port })).code).toBe(0);
    expect((await probe([], { PORT: port })).code).toBe(0);
    expect((await probe([], { OPS_PORT: '1', PORT: port })).code).toBe(1);
  });

  it('asks a JSON-RPC node for its chain id with --jsonrpc', async () => {
    expect((await probe([`${base}/rpc`, '--jsonrpc'])).code).toBe(0);
    const result = await probe([`${base}/not-rpc`, '--jsonrpc']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no chain id/);
  });
});
