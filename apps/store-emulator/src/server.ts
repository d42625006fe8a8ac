import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Catalogue } from './catalogue/catalogue.js';
import { json, type EmulatorRequest, type EmulatorResponse, type Route } from './http.js';
import { webCatalogueToken } from './render/store-page.js';
import { ampApiRoutes } from './routes/amp-api.js';
import { itunesRoutes } from './routes/itunes.js';
import { webRoutes } from './routes/web.js';

export const DEFAULT_SEED = 20_250_101;

/**
 * What a request hook may do to a request before the emulator answers it: wait, answer something
 * else, or drop the connection. Room for failure injection (throttling, outages, slow hosts).
 */
export interface RequestFault {
  delayMs?: number;
  /** Answer with this instead of the real response. */
  response?: EmulatorResponse;
  /** Destroy the socket without answering, as a reset connection would. */
  destroy?: boolean;
}

export type RequestHook = (request: EmulatorRequest) => RequestFault | undefined;

export interface StoreEmulatorOptions {
  /** 0 or undefined: a free port. */
  port?: number;
  host?: string;
  seed?: number;
  onRequest?: RequestHook;
}

export interface StoreEmulator {
  url: string;
  port: number;
  seed: number;
  close(): Promise<void>;
  /** Requests received so far, whatever their outcome. */
  requestCount(): number;
  /** Replaces (or with no argument removes) the request hook. */
  setRequestHook(hook?: RequestHook): void;
  /** The bearer token the pages currently carry; the web catalogue accepts only this one. */
  token(): string;
  /** Issues a new token, so clients holding the old one get 401 until they re-read a page. */
  rotateToken(): string;
}

export async function startStoreEmulator(options: StoreEmulatorOptions = {}): Promise<StoreEmulator> {
  const seed = options.seed ?? DEFAULT_SEED;
  const catalogue = new Catalogue(seed);
  let rotation = 0;
  let token = webCatalogueToken(seed, rotation);
  let hook = options.onRequest;
  let requests = 0;
  let baseUrl = '';
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();

  const routes: Route[] = [
    ...itunesRoutes(catalogue, () => baseUrl),
    ...ampApiRoutes(catalogue, () => token),
    ...webRoutes(catalogue, () => token, () => baseUrl),
  ];

  const answer = (request: EmulatorRequest): EmulatorResponse => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return json(405, { errorMessage: 'Method Not Allowed' });
    for (const route of routes) {
      const response = route(request);
      if (response) return response;
    }
    return json(404, { errorMessage: 'Not Found' });
  };

  const send = (res: ServerResponse, response: EmulatorResponse) => {
    if (res.destroyed) return;
    const body = response.body ?? '';
    res.writeHead(response.status, { ...response.headers, 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    requests++;
    const rawUrl = req.url ?? '/';
    const parsed = new URL(rawUrl, 'http://emulator.invalid');
    const request: EmulatorRequest = { method: req.method ?? 'GET', path: parsed.pathname, query: parsed.searchParams, headers: req.headers };
    let fault: RequestFault | undefined;
    let response: EmulatorResponse;
    try {
      fault = hook?.(request);
      response = fault?.response ?? answer(request);
    } catch (error) {
      response = json(500, { errorMessage: error instanceof Error ? error.message : 'emulator failure' });
    }
    const finish = () => (fault?.destroy ? req.socket.destroy() : send(res, response));
    if (!fault?.delayMs) return finish();
    const timer = setTimeout(() => {
      timers.delete(timer);
      finish();
    }, fault.delayMs);
    timers.add(timer);
  };

  const server = createServer(handle);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  baseUrl = `http://${host}:${address.port}`;

  return {
    url: baseUrl,
    port: address.port,
    seed,
    requestCount: () => requests,
    setRequestHook: (next) => (hook = next),
    token: () => token,
    rotateToken: () => (token = webCatalogueToken(seed, ++rotation)),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
