/*
 * The informational addresses over real HTTP: content types, the configured public base URL in every
 * document, /.well-known/x402 carrying the accepts lists payments offers (stand-ins on a private
 * nats-server, as in gateway-http.spec.ts), the bazaar declaration on 402 challenges, and the 404/405
 * answers around them unchanged.
 */
import { ErrorCode, Subject } from '@appcat/contracts';
import { PRICED_ROUTES } from '@appcat/routes';
import { startNatsServer, type ManagedProcess } from '@appcat/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { validateDiscoveryExtension } from '@x402/extensions/bazaar';
import { acceptsFor, serveStandIn, type StandInHandler, startGatewayOnStandIns } from './support/stand-ins.js';

const PUBLIC = 'https://appcat.example.org';
const KEY = 'ak_' + 'x'.repeat(43);

describe('discovery documents over HTTP', () => {
  let nats: ManagedProcess;
  let responder: NatsConnection;
  let app: NestFastifyApplication;
  let base: string;
  const asked = { accepts: [] as Record<string, unknown>[], debit: 0 };
  let acceptsFails = false;

  beforeAll(async () => {
    nats = await startNatsServer();
    responder = await connect({ servers: nats.url });
    const serve = (subject: string, handler: StandInHandler) => serveStandIn(responder, subject, handler);
    serve(Subject.X402Accepts, (data) => {
      asked.accepts.push(data);
      if (acceptsFails) throw { code: ErrorCode.FacilitatorUnavailable, message: 'payment facilitator unreachable' };
      return acceptsFor(data);
    });
    for (const subject of [Subject.CreditsDebit, Subject.CreditsReserve])
      serve(subject, () => {
        asked.debit += 1;
        return { debitId: 'd1', reservationId: 'r1', balance: '4997000' };
      });
    ({ app, base } = await startGatewayOnStandIns(nats.url, PUBLIC));
  });

  afterAll(async () => {
    await app.close();
    await responder.close();
    await nats.stop();
  });

  async function get(path: string, init: RequestInit = {}) {
    const res = await fetch(base + path, init);
    return { status: res.status, headers: res.headers, body: await res.text() };
  }
  const decode = (header: string | null) => JSON.parse(Buffer.from(header ?? '', 'base64').toString('utf8'));

  // First, while payments has not been asked yet (the gateway caches accepts lists for a minute).
  it('/.well-known/x402 while payments cannot build an accepts list → 502 envelope naming the cause', async () => {
    acceptsFails = true;
    try {
      const res = await get('/.well-known/x402');
      expect(res.status).toBe(502);
      expect(JSON.parse(res.body)).toEqual({ status: 502, message: 'payment facilitator unreachable', data: null });
    } finally {
      acceptsFails = false;
      asked.accepts = [];
    }
  });

  it.each([
    ['/openapi.json', 'application/json; charset=utf-8'],
    ['/index.md', 'text/markdown; charset=utf-8'],
    ['/skill.md', 'text/markdown; charset=utf-8'],
    ['/llms.txt', 'text/plain; charset=utf-8'],
  ])('%s: %s, free, written for the public base URL', async (path, contentType) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(contentType);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.body).toContain(PUBLIC);
    // Neither the address the gateway listens on nor the local default leaks into a document.
    expect(res.body).not.toMatch(/127\.0\.0\.1|localhost/);
    for (const route of PRICED_ROUTES) expect(res.body).toContain(route.path);
    expect(res.body).toContain('0.003');
    expect(asked.accepts).toEqual([]);
    expect(asked.debit).toBe(0);
  });

  it('/openapi.json is the OpenAPI 3.1 document of the served routes', async () => {
    const doc = JSON.parse((await get('/openapi.json')).body);
    expect(doc).toMatchObject({ openapi: '3.1.0', info: { version: '1.0.0' }, servers: [{ url: PUBLIC }] });
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([...PRICED_ROUTES.map((r) => r.path), '/api/credits/balance', '/api/credits/topup']),
    );
  });

  it('/.well-known/x402 lists the paid resources under the public URL with the accepts their challenges carry', async () => {
    const res = await get('/.well-known/x402');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const doc = JSON.parse(res.body);
    expect(doc).toMatchObject({ version: 1, x402Version: 2 });
    expect(doc.resources).toHaveLength(PRICED_ROUTES.length);
    for (const url of doc.resources) expect(url.startsWith(`${PUBLIC}/api/`)).toBe(true);
    // One question per offer (price and network set), not per route.
    expect(asked.accepts.map((a) => a.offer)).toEqual([
      { price: '3000', networks: 'standard' },
      { price: '3000', networks: 'extended' },
    ]);

    for (const [i, route] of PRICED_ROUTES.entries()) {
      const item = doc.items[i];
      expect(item.resource).toBe(PUBLIC + route.path);
      expect(validateDiscoveryExtension(item.extensions.bazaar)).toEqual({ valid: true });
      // The example URL's challenge, asked of the gateway itself, offers exactly the listed accepts.
      const challenge = decode((await get(item.example.slice(PUBLIC.length))).headers.get('payment-required'));
      expect(challenge.resource.url).toBe(item.example);
      expect(challenge.accepts).toEqual(item.accepts);
    }
    // The developers route is the one on the extended network set.
    const developers = doc.items.find((item: { resource: string }) =>
      item.resource.endsWith('/api/developers/{developerId}'),
    );
    expect(developers.accepts.map((a: { network: string }) => a.network)).toEqual(['eip155:8453', 'eip155:137']);
    expect(asked.debit).toBe(0);
    // The draft discovery path serves the same document.
    const json = await get('/.well-known/x402.json');
    expect([json.status, json.headers.get('content-type'), json.body]).toEqual([
      200,
      'application/json; charset=utf-8',
      res.body,
    ]);
  });

  it("a priced route's 402 carries its bazaar declaration with the request's path parameters", async () => {
    const res = await get('/api/apps/com.example.app/reviews?sort=helpful');
    expect(res.status).toBe(402);
    const { extensions } = decode(res.headers.get('payment-required'));
    expect(validateDiscoveryExtension(extensions.bazaar)).toEqual({ valid: true });
    expect(extensions.bazaar).toMatchObject({
      routeTemplate: '/api/apps/:appId/reviews',
      info: { input: { type: 'http', method: 'GET', pathParams: { appId: 'com.example.app' } } },
    });
    expect(Object.keys(extensions.bazaar.schema.properties.input.properties.queryParams.properties)).toEqual([
      'page',
      'country',
      'sort',
    ]);
  });

  it('a top-up challenge carries no bazaar declaration (it is not a catalogue resource)', async () => {
    const res = await get('/api/credits/topup?amount=5', { method: 'POST' });
    expect(res.status).toBe(402);
    // Only x402's payment-identifier, which every challenge offers.
    expect(Object.keys(decode(res.headers.get('payment-required')).extensions ?? {})).toEqual(['payment-identifier']);
  });

  it.each([
    ['POST', '/openapi.json', 404],
    ['GET', '/openapi.yaml', 404],
    ['GET', '/index.md/more', 404],
    ['GET', '/.well-known/x402/extra', 404],
    ['HEAD', '/api/apps/1', 405],
  ])('%s %s → %i envelope, as before', async (method, path, status) => {
    const res = await get(path, { method, headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(status);
    if (method !== 'HEAD')
      expect(JSON.parse(res.body)).toEqual({
        status,
        message: status === 404 ? 'not found' : 'method not allowed',
        data: null,
      });
    expect(asked.debit).toBe(0);
  });
});
