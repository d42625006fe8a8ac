import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Catalogue } from './catalogue/catalogue.js';
import { type CatalogueListing, listCatalogue } from './control/catalogue-listing.js';
import { answerControl, CONTROL_PREFIX, type ControlPlane } from './control/control-routes.js';
import { EndpointStats, type EndpointStatsSnapshot } from './control/endpoint-stats.js';
import { endpointOf } from './control/endpoints.js';
import { type DriftSettings, TODAYS_SHAPES } from './control/drift.js';
import { type ActiveFault, FaultBook, type FaultSpec } from './control/fault-book.js';
import { EmulatedRateLimit, type RateLimitSettings } from './control/rate-limit.js';
import type { RequestFault, RequestHook } from './control/request-fault.js';
import { json, type EmulatorRequest, type EmulatorResponse, type Route } from './http.js';
import { DEFAULT_TOKEN_LIFETIME_S, tokenIssuedAt, webCatalogueToken } from './render/store-page.js';
import { ampApiRoutes } from './routes/amp-api.js';
import { itunesRoutes } from './routes/itunes.js';
import { sameOriginRoutes } from './routes/same-origin.js';
import { storeFactsRoutes } from './routes/store-facts.js';
import { webRoutes } from './routes/web.js';
import { PlayCatalogue } from './google-play/play-catalogue.js';
import { googlePlayRoutes } from './google-play/play-routes.js';

export type { RequestFault, RequestHook } from './control/request-fault.js';

export const DEFAULT_SEED = 20_250_101;

/** Control requests and batchexecute forms carry small bodies; anything bigger is refused. */
const MAX_CONTROL_BODY_BYTES = 65_536;

export interface StoreEmulatorOptions {
  /** 0 or undefined: a free port. */
  port?: number;
  host?: string;
  seed?: number;
  onRequest?: RequestHook;
  /** Apple's rate limit, emulated; off unless a limit is above 0. */
  rateLimit?: Partial<RateLimitSettings>;
  /** How long a web catalogue token is valid (its `exp`); default about half a year. Shorter ones are issued at start-up. */
  tokenLifetimeSeconds?: number;
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
  /** Injects a fault (as `POST /__emulator/faults` does); the in-process request hook runs first. */
  addFault(fault: FaultSpec): ActiveFault;
  /** Removes every injected fault (as `DELETE /__emulator/faults`). */
  clearFaults(): void;
  /** Upstream requests per endpoint since the last reset (as `GET /__emulator/stats`). */
  stats(): EndpointStatsSnapshot;
  resetStats(): void;
  /** Changes the emulated rate limit (as `PUT /__emulator/rate-limit`); the windows start empty. */
  setRateLimit(settings: Partial<RateLimitSettings>): RateLimitSettings;
  /** Makes answers drift from today's shapes (as `PUT /__emulator/drift`); fields not given keep their value. */
  setDrift(settings: Partial<DriftSettings>): DriftSettings;
  /** Ids that exist, for load generators (as `GET /__emulator/catalogue`). */
  catalogue(): CatalogueListing;
}

export async function startStoreEmulator(options: StoreEmulatorOptions = {}): Promise<StoreEmulator> {
  const seed = options.seed ?? DEFAULT_SEED;
  const catalogue = new Catalogue(seed);
  const playCatalogue = new PlayCatalogue(seed);
  let rotation = 0;
  const tokenLifetime = options.tokenLifetimeSeconds ?? DEFAULT_TOKEN_LIFETIME_S;
  let issuedAt = tokenIssuedAt(Date.now(), tokenLifetime);
  const issue = () => webCatalogueToken(seed, rotation, issuedAt, tokenLifetime);
  let token = issue();
  /** The token pages carry now: once one expires, the site serves a new one (and the API refuses the old). */
  const currentToken = () => {
    if ((issuedAt + rotation + tokenLifetime) * 1000 <= Date.now()) {
      issuedAt = Math.floor(Date.now() / 1000) - rotation;
      rotation++;
      token = issue();
    }
    return token;
  };
  let hook = options.onRequest;
  let requests = 0;
  let baseUrl = '';
  const stats = new EndpointStats();
  const faults = new FaultBook();
  const rateLimit = new EmulatedRateLimit(options.rateLimit);
  let listing: CatalogueListing | undefined;
  let drift: DriftSettings = { ...TODAYS_SHAPES };
  const rotateToken = () => {
    rotation++;
    return (token = issue());
  };
  const setDrift = (settings: Partial<DriftSettings>) => (drift = { ...drift, ...settings });
  const control: ControlPlane = {
    stats,
    faults,
    rateLimit,
    listing: () => (listing ??= listCatalogue(catalogue)),
    rotateToken,
    drift: () => drift,
    setDrift,
  };
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();

  const routes: Route[] = [
    ...itunesRoutes(
      catalogue,
      () => baseUrl,
      () => drift,
    ),
    ...ampApiRoutes(catalogue, currentToken, () => drift),
    ...sameOriginRoutes(catalogue, () => drift),
    ...webRoutes(
      catalogue,
      currentToken,
      () => baseUrl,
      () => drift,
    ),
    ...googlePlayRoutes(playCatalogue),
    ...storeFactsRoutes(catalogue, () => baseUrl),
  ];

  const answer = (request: EmulatorRequest): EmulatorResponse => {
    // POST is Google Play's batchexecute only.
    const post = request.method === 'POST' && endpointOf(request.path) === 'play-batch';
    if (request.method !== 'GET' && request.method !== 'HEAD' && !post)
      return json(405, { errorMessage: 'Method Not Allowed' });
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

  /** Reads a request's body, then `then` with it; a body past the bound is a 413. */
  const withBody = (req: IncomingMessage, res: ServerResponse, then: (body: string) => void) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_CONTROL_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_CONTROL_BODY_BYTES) return send(res, json(413, { error: 'body too large' }));
      then(Buffer.concat(chunks).toString('utf8'));
    });
  };

  const handleControl = (req: IncomingMessage, res: ServerResponse, request: EmulatorRequest) =>
    withBody(req, res, (body) => {
      let response: EmulatorResponse;
      try {
        response = answerControl(control, request, body);
      } catch (error) {
        response = json(500, { error: error instanceof Error ? error.message : 'emulator failure' });
      }
      send(res, response);
    });

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const rawUrl = req.url ?? '/';
    const parsed = new URL(rawUrl, 'http://emulator.invalid');
    const request: EmulatorRequest = {
      method: req.method ?? 'GET',
      path: parsed.pathname,
      query: parsed.searchParams,
      headers: req.headers,
    };
    if (request.path.startsWith(CONTROL_PREFIX)) return handleControl(req, res, request);
    if (req.method === 'POST') return withBody(req, res, (body) => serve(req, res, { ...request, body }));
    serve(req, res, request);
  };

  const serve = (req: IncomingMessage, res: ServerResponse, request: EmulatorRequest) => {
    requests++;
    const endpoint = endpointOf(request.path);
    stats.count(endpoint);
    let fault: RequestFault | undefined;
    let response: EmulatorResponse;
    try {
      fault = hook?.(request) ?? faults.take(request);
      if (fault) stats.countFault();
      const refused = fault?.response || fault?.destroy ? undefined : rateLimit.check(endpoint);
      if (refused) stats.countRateLimited();
      response = fault?.response ?? refused ?? answer(request);
    } catch (error) {
      response = json(500, { errorMessage: error instanceof Error ? error.message : 'emulator failure' });
    }
    const finish = () => (fault?.destroy ? req.socket.destroy() : send(res, response));
    const delay = () => {
      if (!fault?.delayMs) return finish();
      const timer = setTimeout(() => {
        timers.delete(timer);
        finish();
      }, fault.delayMs);
      timers.add(timer);
    };
    if (!fault?.until) return delay();
    // A rejected gate opens it too; a request still held when the emulator closes loses its socket.
    void fault.until.then(delay, delay);
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
    token: currentToken,
    rotateToken,
    addFault: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
    stats: () => stats.read(),
    resetStats: () => stats.reset(),
    setRateLimit: (settings) => rateLimit.configure(settings),
    setDrift,
    catalogue: () => control.listing(),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
