/*
 * The gateway's HTTP behaviour: envelope, validation, statuses and the order "validate, charge,
 * fetch". Payments and catalog are stand-ins on a private nats-server, so each case can choose
 * what they answer and count what they were asked; the real services are exercised end to end in
 * apps/e2e.
 */
import { ErrorCode, Subject, type WireError } from '@appcat/contracts';
import { startNatsServer, type ManagedProcess } from '@appcat/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { connect as tcpConnect } from 'node:net';
import { createGatewayApp, type GatewayConfig } from '../src/index.js';

type Handler = (data: Record<string, unknown>) => unknown;

class StandIn {
  calls: Record<string, unknown>[] = [];
  constructor(public handler: Handler) {}
}

const KEY = 'ak_' + 'x'.repeat(43);

describe('gateway over HTTP', () => {
  let nats: ManagedProcess;
  let responder: NatsConnection;
  let app: NestFastifyApplication;
  let base: string;
  const debit = new StandIn(() => ({ debitId: 'd1', balance: '4997000' }));
  const balance = new StandIn(() => ({ balance: '4997000' }));
  const catalog = new StandIn((data) => ({ data: { echo: data.query } }));

  const serve = (subject: string, standIn: StandIn) =>
    responder.subscribe(subject, {
      queue: 'stand-in',
      callback: (_err, msg) => {
        const packet = msg.json<{ id: string; data: Record<string, unknown> }>();
        standIn.calls.push(packet.data);
        try {
          msg.respond(JSON.stringify({ id: packet.id, response: standIn.handler(packet.data), isDisposed: true }));
        } catch (err) {
          msg.respond(JSON.stringify({ id: packet.id, err: err as WireError, isDisposed: true }));
        }
      },
    });

  beforeAll(async () => {
    nats = await startNatsServer();
    responder = await connect({ servers: nats.url });
    serve(Subject.CreditsDebit, debit);
    serve(Subject.CreditsBalance, balance);
    serve(Subject.CatalogFetch, catalog);
    const config: GatewayConfig = {
      host: '127.0.0.1',
      port: 0,
      publicBaseUrl: 'http://gateway.test',
      nats: { servers: [nats.url], requestTimeoutMs: 1000, shutdownGraceMs: 0 },
      bodyLimitBytes: 16_384,
      trustProxy: false,
    };
    app = await createGatewayApp(config, { logger: false });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });

  afterAll(async () => {
    await app.close();
    await responder.close();
    await nats.stop();
  });

  beforeEach(() => {
    for (const s of [debit, balance, catalog]) s.calls = [];
    debit.handler = () => ({ debitId: 'd1', balance: '4997000' });
    catalog.handler = (data) => ({ data: { echo: data.query } });
  });

  // Real HTTP on a port: Fastify's inject() needs an ESM-only dependency that jest cannot load on Node 20.
  async function request(method: string, url: string, headers: Record<string, string> = {}) {
    const res = await fetch(base + url, { method, headers });
    return { statusCode: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
  }
  const get = (url: string, headers: Record<string, string> = {}) => request('GET', url, headers);
  const paid = (url: string) => get(url, { authorization: `Bearer ${KEY}` });

  function expectEnvelope(res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, message: string) {
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.body)).toEqual({ status, message, data: null });
  }

  describe('credit-paid calls', () => {
    it('debits through payments, then returns the catalog data with the balance left', async () => {
      const res = await paid('/api/apps?term=chess&country=GB&page=2');
      expect(res.statusCode).toBe(200);
      expect(JSON.parse(res.body)).toEqual({
        status: 200,
        message: 'ok',
        data: { echo: { route: 'apps.search', term: 'chess', page: 2, country: 'gb' } },
      });
      expect(res.headers['x-credits-remaining']).toBe('4.997000');
      expect(res.headers['x-cache']).toBe('UPSTREAM');
      expect(res.headers.age).toBeUndefined();
      expect(debit.calls).toEqual([
        expect.objectContaining({ amount: '3000', route: 'apps.search', keyHash: expect.stringMatching(/^[0-9a-f]{64}$/) }),
      ]);
      expect(JSON.stringify(debit.calls)).not.toContain(KEY);
    });

    it('serves all nine routes', async () => {
      const urls = [
        '/api/apps?term=chess',
        '/api/apps/284882215',
        '/api/apps/com.facebook.Facebook/reviews?sort=helpful&page=3',
        '/api/apps/284882215/similar',
        '/api/bundles?term=pro',
        '/api/bundles/1482985563',
        '/api/bundles/1482985563/reviews',
        '/api/bundles/1482985563/similar',
        '/api/developers/284882218',
      ];
      for (const url of urls) expect((await paid(url)).statusCode).toBe(200);
      expect(debit.calls).toHaveLength(9);
      expect(catalog.calls.map((c) => (c.query as { route: string }).route)).toEqual([
        'apps.search',
        'apps.get',
        'apps.reviews',
        'apps.similar',
        'bundles.search',
        'bundles.get',
        'bundles.reviews',
        'bundles.similar',
        'developers.get',
      ]);
    });

    it.each([
      [ErrorCode.CreditInsufficient, 402, 'topup_required'],
      [ErrorCode.CreditKeyUnknown, 401, 'invalid api key'],
      [ErrorCode.CreditKeyRevoked, 401, 'api key revoked'],
      [ErrorCode.CreditStoreUnavailable, 502, 'credit store unavailable'],
    ])('a debit refused with %s → %i %s, and the catalog is not asked', async (code, status, message) => {
      debit.handler = () => {
        throw { code, message: 'credit store unavailable' };
      };
      expectEnvelope(await paid('/api/apps/1'), status, message);
      expect(catalog.calls).toHaveLength(0);
    });

    it('an upstream failure after the debit is a 502 naming the cause; the debit stands', async () => {
      catalog.handler = () => {
        throw { code: ErrorCode.UpstreamTimeout, message: 'upstream store timed out after 5000 ms' };
      };
      expectEnvelope(await paid('/api/apps/1'), 502, 'upstream store timed out after 5000 ms');
      expect(debit.calls).toHaveLength(1);
    });

    it('says when the data is a stale copy and how old it is', async () => {
      catalog.handler = () => ({ data: { results: [] }, source: 'stale', ageSeconds: 7200.4 });
      const res = await paid('/api/apps/1');
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-cache']).toBe('STALE');
      expect(res.headers.age).toBe('7200');
    });

    it('an unexpected fault is a 500 envelope that reveals nothing', async () => {
      debit.handler = () => ({ debitId: 'd1', balance: 'not-a-number' });
      const res = await paid('/api/apps/1');
      expectEnvelope(res, 500, 'internal error');
      expect(res.body).not.toMatch(/RangeError|at |node_modules/);
    });
  });

  describe('nothing is charged', () => {
    afterEach(() => expect(debit.calls).toHaveLength(0));

    it('without credentials: 402 payment_required', async () => {
      expectEnvelope(await get('/api/apps?term=chess'), 402, 'payment_required');
      expect(catalog.calls).toHaveLength(0);
    });

    it.each([
      ['/api/apps', 'term is required'],
      ['/api/apps?term=', 'term is required'],
      ['/api/apps?term=a&term=b', 'term must be given only once'],
      ['/api/apps?term=chess&page=0', 'page must be an integer from 1 to 10'],
      ['/api/apps?term=chess&country=xx', 'country must be an ISO 3166-1 alpha-2 country code such as us'],
      ['/api/apps?term=chess&lang=%00', 'lang must be a language tag such as en-us'],
      ['/api/apps/1/reviews?sort=newest', 'sort must be one of: recent, helpful'],
      ['/api/apps/1/reviews?page=11', 'page must be an integer from 1 to 10'],
      ['/api/apps/..%2F..%2Fadmin', 'appId must be a numeric App Store id or a bundle identifier such as com.example.app'],
      ['/api/bundles/abc', 'bundleId must be a numeric App Store bundle id'],
      ['/api/developers/1%20OR%201', 'developerId must be a numeric App Store developer id'],
    ])('%s → 400 %s, even with a valid key', async (url, message) => {
      expectEnvelope(await paid(url), 400, message);
      expectEnvelope(await get(url), 400, message);
    });

    it.each(['/', '/api', '/api/apps/1/unknown', '/api/developers', '/api/credits', '/admin/keys'])('%s → 404', async (url) => {
      expectEnvelope(await paid(url), 404, 'not found');
    });

    it.each(['POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const)('%s on a priced path → 405 with Allow: GET', async (method) => {
      const res = await request(method, '/api/apps/1', { authorization: `Bearer ${KEY}` });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('GET');
      if (method !== 'HEAD') expect(JSON.parse(res.body)).toEqual({ status: 405, message: 'method not allowed', data: null });
    });

    it('a malformed Authorization header or key shape → 401 without asking payments', async () => {
      expectEnvelope(await get('/api/apps/1', { authorization: 'Basic abc' }), 401, 'authorization must be "Bearer <api key>"');
      expectEnvelope(await get('/api/apps/1', { authorization: 'Bearer nope' }), 401, 'invalid api key');
    });

    it('a key and an x402 payment together → 400', async () => {
      expectEnvelope(
        await get('/api/apps/1', { authorization: `Bearer ${KEY}`, 'payment-signature': 'e30=' }),
        400,
        'authorization and payment-signature cannot be combined: pay with one',
      );
    });

    it('an oversized body → 413 envelope', async () => {
      const res = await fetch(base + '/api/apps?term=x', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pad: 'x'.repeat(20_000) }),
      });
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({ status: 413, message: 'request body is too large', data: null });
    });

    it('a malformed URL → 400 envelope', async () => {
      expectEnvelope(await paid('/api/apps/%E0%A4%A'), 400, 'malformed url');
    });
  });

  describe('balance', () => {
    it('is free and formatted with six decimals', async () => {
      const res = await paid('/api/credits/balance');
      expect(res.statusCode).toBe(200);
      expect(JSON.parse(res.body)).toEqual({ status: 200, message: 'ok', data: { balance: '4.997000', currency: 'USD' } });
      expect(debit.calls).toHaveLength(0);
    });

    it('needs a key', async () => {
      expectEnvelope(await get('/api/credits/balance'), 401, 'an api key is required: Authorization: Bearer <api key>');
    });
  });

  it('echoes a safe x-request-id and makes one otherwise', async () => {
    expect((await get('/nope', { 'x-request-id': 'trace-123' })).headers['x-request-id']).toBe('trace-123');
    expect((await get('/nope', { 'x-request-id': 'bad id with spaces' })).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers oversized headers with a 431 envelope on the socket', async () => {
    const { port } = app.getHttpServer().address() as { port: number };
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = tcpConnect(port, '127.0.0.1', () => {
        socket.write(`GET /api/apps?term=x HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`);
      });
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1.1 431 /);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual({ status: 431, message: 'request headers too large', data: null });
  });
});
