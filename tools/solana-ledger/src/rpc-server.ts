import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Ledger, RpcError } from './ledger.js';
import { RPC_METHODS } from './rpc-methods.js';

const MAX_BODY_BYTES = 1_000_000;

interface RpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** u64s leave as bare JSON numbers, as the validator writes them (kit reads them back as bigints). */
function stringify(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? `__u64__${v}` : v)).replace(
    /"__u64__(\d+)"/g,
    '$1',
  );
}

function answer(ledger: Ledger, request: RpcRequest): unknown {
  const id = request.id ?? null;
  const method = typeof request.method === 'string' ? RPC_METHODS[request.method] : undefined;
  if (request.jsonrpc !== '2.0' || typeof request.method !== 'string') {
    return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } };
  }
  if (!method) return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } };
  try {
    return { jsonrpc: '2.0', id, result: method(ledger, Array.isArray(request.params) ? request.params : []) };
  } catch (error) {
    if (error instanceof RpcError) {
      return {
        jsonrpc: '2.0',
        id,
        error: { code: error.code, message: error.message, ...(error.data ? { data: error.data } : {}) },
      };
    }
    return {
      jsonrpc: '2.0',
      id,
      error: { code: -32603, message: `Internal error: ${error instanceof Error ? error.message : String(error)}` },
    };
  }
}

async function readBody(request: IncomingMessage): Promise<string | undefined> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Browsers may call it (the /topup page reads a blockhash), as they may a public RPC node. */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': 'content-type',
};

function reply(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'application/json', ...CORS }).end(body);
}

export interface RpcServer {
  url: string;
  close(): Promise<void>;
}

/** JSON-RPC 2.0 over HTTP POST (single requests and batches) in front of the ledger. */
export async function startRpcServer(ledger: Ledger, host: string, port: number): Promise<RpcServer> {
  const server = createServer((request, response) => {
    if (request.method === 'OPTIONS') return void response.writeHead(204, CORS).end();
    if (request.method !== 'POST') return reply(response, 405, stringify({ error: 'POST a JSON-RPC request' }));
    void readBody(request).then((body) => {
      if (body === undefined) return reply(response, 413, stringify({ error: 'request too large' }));
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return reply(
          response,
          200,
          stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }),
        );
      }
      const result = Array.isArray(parsed)
        ? parsed.map((entry) => answer(ledger, entry as RpcRequest))
        : answer(ledger, (parsed ?? {}) as RpcRequest);
      reply(response, 200, stringify(result));
    });
  });
  // Clients keep connections alive; close() must not wait for them.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    url: `http://${reachable}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
