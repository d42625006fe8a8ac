/*
 * The gateway's HTTP behaviour: envelope, validation, statuses and the order "validate, hold,
 * fetch, capture" (a failed call is never charged). Payments and catalog are stand-ins on a private nats-server, so each case can choose
 * what they answer and count what they were asked; the real services are exercised end to end in
 * tools/e2e.
 */
import { GatewayMetrics } from '@appcat/ops';
import { declarePaymentIdentifierExtension } from '@x402/extensions/payment-identifier';
import { ErrorCode, Subject } from '@appcat/contracts';
import { startNatsServer, type ManagedProcess } from '@appcat/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { connect as tcpConnect, type Socket } from 'node:net';
import { openSocket, parseResponses, rawExchange, readUntilClosed } from './support/raw-http.js';
import {
  acceptsFor,
  heldOrDebited,
  serveCredits,
  serveStandIn,
  serveX402Holds,
  STAND_IN_X402_HOLD,
  StandIn,
  startGatewayOnStandIns,
} from './support/stand-ins.js';

function decode(header: unknown) {
  expect(typeof header).toBe('string');
  return JSON.parse(Buffer.from(header as string, 'base64').toString('utf8'));
}

const KEY = 'ak_' + 'x'.repeat(43);
const RECEIPT = { paymentResponse: 'cmVjZWlwdA==', network: 'eip155:8453', payer: '0xP', transaction: '0xT' };

describe('gateway over HTTP', () => {
  let nats: ManagedProcess;
  let responder: NatsConnection;
  let app: NestFastifyApplication;
  let base: string;
  /** Reservations (and one-step debits): what payments holds before the catalog is asked. */
  const debit = new StandIn(heldOrDebited);
  let capture: StandIn;
  let release: StandIn;
  const balance = new StandIn(() => ({ balance: '4997000' }));
  const catalog = new StandIn((data) => ({ dataJson: JSON.stringify({ echo: data.query }) }));
  const accepts = new StandIn(acceptsFor);
  /** x402 payments checked and held (payments.x402.authorize); settle answers RECEIPT. */
  const pay = new StandIn(() => STAND_IN_X402_HOLD);
  let settle: StandIn;
  let x402Release: StandIn;
  const topUp = new StandIn((data) => ({
    receipt: { paymentResponse: 'cmVjZWlwdA==', network: 'eip155:8453', payer: '0xP', transaction: '0xT' },
    ...(data.keyHash ? {} : { key: KEY }),
    id: 'k1',
    prefix: KEY.slice(0, 12),
    balance: data.amount,
  }));

  const serve = (subject: string, standIn: StandIn) => serveStandIn(responder, subject, standIn);

  beforeAll(async () => {
    nats = await startNatsServer();
    responder = await connect({ servers: nats.url });
    ({ capture, release } = serveCredits(responder, debit));
    serve(Subject.CreditsBalance, balance);
    serve(Subject.CatalogFetch, catalog);
    serve(Subject.X402Accepts, accepts);
    ({ settle, release: x402Release } = serveX402Holds(responder, pay, RECEIPT));
    serve(Subject.CreditsTopUp, topUp);
    ({ app, base } = await startGatewayOnStandIns(nats.url));
  });

  afterAll(async () => {
    await app.close();
    await responder.close();
    await nats.stop();
  });

  beforeEach(() => {
    for (const s of [debit, balance, catalog, accepts, pay, topUp, capture, release, settle, x402Release]) s.reset();
    catalog.handler = (data) => ({ dataJson: JSON.stringify({ echo: data.query }) });
  });

  // Real HTTP on a port: Fastify's inject() needs an ESM-only dependency that jest cannot load on Node 20.
  async function request(method: string, url: string, headers: Record<string, string> = {}) {
    const res = await fetch(base + url, { method, headers });
    return { statusCode: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
  }
  const get = (url: string, headers: Record<string, string> = {}) => request('GET', url, headers);
  const paid = (url: string) => get(url, { authorization: `Bearer ${KEY}` });

  function expectEnvelope(
    res: { statusCode: number; headers: Record<string, unknown>; body: string },
    status: number,
    message: string,
  ) {
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.body)).toEqual({ status, message, data: null });
  }

  describe('credit-paid calls', () => {
    it('holds the price through payments, fetches, captures, then returns the data with the balance left', async () => {
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
        expect.objectContaining({
          amount: '3000',
          route: 'apps.search',
          keyHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        }),
      ]);
      expect(JSON.stringify(debit.calls)).not.toContain(KEY);
      expect(capture.calls).toEqual([
        expect.objectContaining({ reservationId: 'r-' + String(debit.calls[0].requestId) }),
      ]);
      expect(release.calls).toHaveLength(0);
    });

    it('serves all fourteen routes', async () => {
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
        '/api/apps/284882215/ratings?country=GB',
        '/api/apps/com.facebook.Facebook/privacy',
        '/api/apps/284882215/versions?lang=en_us',
        '/api/charts/top-grossing?genre=6014&page=2',
        '/api/suggestions?term=%20face%20',
      ];
      for (const url of urls) expect((await paid(url)).statusCode).toBe(200);
      expect(debit.calls).toHaveLength(14);
      expect(capture.calls).toHaveLength(14);
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
        'apps.ratings',
        'apps.privacy',
        'apps.versions',
        'charts.get',
        'suggestions.search',
      ]);
      // Defaults applied and case normalised once, in the route table.
      expect(catalog.calls.slice(9).map((c) => c.query)).toEqual([
        { route: 'apps.ratings', appId: '284882215', country: 'gb' },
        { route: 'apps.privacy', appId: 'com.facebook.Facebook', country: 'us' },
        { route: 'apps.versions', appId: '284882215', country: 'us', lang: 'en-us' },
        { route: 'charts.get', chart: 'top-grossing', country: 'us', genre: '6014', page: 2 },
        { route: 'suggestions.search', term: 'face', country: 'us' },
      ]);
    });

    it.each([
      [ErrorCode.CreditInsufficient, 402, 'topup_required'],
      [ErrorCode.CreditKeyUnknown, 401, 'invalid api key'],
      [ErrorCode.CreditKeyRevoked, 401, 'api key revoked'],
      [ErrorCode.CreditStoreUnavailable, 502, 'credit store unavailable; nothing was charged'],
    ])('a reservation refused with %s → %i %s, and the catalog is not asked', async (code, status, message) => {
      debit.handler = () => {
        throw { code, message: 'credit store unavailable' };
      };
      expectEnvelope(await paid('/api/apps/1'), status, message);
      expect(catalog.calls).toHaveLength(0);
    });

    it('an upstream failure is a 502 naming the cause; the hold is released and nothing is charged', async () => {
      catalog.handler = () => {
        throw { code: ErrorCode.UpstreamTimeout, message: 'upstream store timed out after 5000 ms' };
      };
      const res = await paid('/api/apps/1');
      expectEnvelope(res, 502, 'upstream store timed out after 5000 ms; nothing was charged');
      expect(res.headers['x-credits-remaining']).toBeUndefined();
      expect(debit.calls).toHaveLength(1);
      expect(capture.calls).toHaveLength(0);
      expect(await release.asked(1)).toEqual([
        expect.objectContaining({ reservationId: 'r-' + String(debit.calls[0].requestId) }),
      ]);
    });

    it('says when the data is a stale copy and how old it is', async () => {
      catalog.handler = () => ({ dataJson: JSON.stringify({ results: [] }), source: 'stale', ageSeconds: 7200.4 });
      const res = await paid('/api/apps/1');
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-cache']).toBe('STALE');
      expect(res.headers.age).toBe('7200');
    });

    it('an unexpected fault is a 500 envelope that reveals nothing', async () => {
      capture.handler = () => ({ debitId: 'd1', balance: 'not-a-number' });
      const res = await paid('/api/apps/1');
      expectEnvelope(res, 500, 'internal error; nothing was charged');
      expect(res.body).not.toMatch(/RangeError|at |node_modules/);
    });
  });

  describe('nothing is charged', () => {
    afterEach(() => expect(debit.calls).toHaveLength(0));

    it('without credentials: 402 payment_required with the x402 challenge for the route', async () => {
      const res = await get('/api/apps?term=chess');
      expectEnvelope(res, 402, 'payment_required');
      expect(catalog.calls).toHaveLength(0);
      const challenge = decode(res.headers['payment-required']);
      expect(challenge).toEqual({
        x402Version: 2,
        resource: {
          url: 'http://gateway.test/api/apps?term=chess',
          description: 'Search App Store apps by term',
          mimeType: 'application/json',
        },
        accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '3000', asset: '0xA', payTo: '0xB' }],
        // The route's bazaar discovery declaration: checked in discovery-http.spec.ts.
        extensions: {
          bazaar: expect.objectContaining({
            info: expect.objectContaining({ input: expect.objectContaining({ method: 'GET' }) }),
          }),
          // x402's idempotency extension, offered on every challenge, not required.
          'payment-identifier': declarePaymentIdentifierExtension(false),
        },
      });
      const developers = decode((await get('/api/developers/284882218')).headers['payment-required']);
      expect(developers.accepts.map((a: { network: string }) => a.network)).toEqual(['eip155:8453', 'eip155:137']);
    });

    it('an x402 payment that buys nothing → 402 naming the reason, with a fresh challenge', async () => {
      pay.handler = () => {
        throw { code: ErrorCode.PaymentReplayed, message: 'payment already used' };
      };
      const res = await get('/api/apps/1', { 'payment-signature': 'e30=' });
      expectEnvelope(res, 402, 'payment already used');
      expect(decode(res.headers['payment-required'])).toMatchObject({
        error: 'payment already used',
        accepts: [{ amount: '3000' }],
      });
      expect(catalog.calls).toHaveLength(0);
    });

    it('an unreachable facilitator → 502 naming it', async () => {
      pay.handler = () => {
        throw { code: ErrorCode.FacilitatorUnavailable, message: 'payment facilitator unreachable' };
      };
      expectEnvelope(
        await get('/api/apps/1', { 'payment-signature': 'e30=' }),
        502,
        'payment facilitator unreachable; nothing was charged',
      );
      expect(catalog.calls).toHaveLength(0);
    });

    it.each([
      // No connection to the facilitator could be opened: the settlement was never asked for.
      [ErrorCode.FacilitatorUnreachable, 'payment facilitator unreachable; nothing was charged'],
      [
        ErrorCode.FacilitatorUnavailable,
        'payment facilitator unreachable; the charge may have been made: check the balance or the chain before paying again',
      ],
    ])('a settle that fails with %s after the fetch → 502 %s', async (code, message) => {
      settle.handler = () => {
        throw { code, message: 'payment facilitator unreachable' };
      };
      expectEnvelope(await get(`/api/apps/${code.length}`, { 'payment-signature': 'e30=' }), 502, message);
      expect(settle.calls).toHaveLength(1);
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
      [
        '/api/apps/..%2F..%2Fadmin',
        'appId must be a numeric App Store id or a bundle identifier such as com.example.app',
      ],
      ['/api/bundles/abc', 'bundleId must be a numeric App Store bundle id'],
      ['/api/developers/1%20OR%201', 'developerId must be a numeric App Store developer id'],
    ])('%s → 400 %s, even with a valid key', async (url, message) => {
      expectEnvelope(await paid(url), 400, message);
      expectEnvelope(await get(url), 400, message);
    });

    it.each(['/', '/api', '/api/apps/1/unknown', '/api/developers', '/api/credits', '/admin/keys'])(
      '%s → 404',
      async (url) => {
        expectEnvelope(await paid(url), 404, 'not found');
      },
    );

    it.each(['POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const)(
      '%s on a priced path → 405 with Allow: GET',
      async (method) => {
        const res = await request(method, '/api/apps/1', { authorization: `Bearer ${KEY}` });
        expect(res.statusCode).toBe(405);
        expect(res.headers.allow).toBe('GET');
        if (method !== 'HEAD')
          expect(JSON.parse(res.body)).toEqual({ status: 405, message: 'method not allowed', data: null });
      },
    );

    it('a malformed Authorization header or key shape → 401 without asking payments', async () => {
      expectEnvelope(
        await get('/api/apps/1', { authorization: 'Basic abc' }),
        401,
        'authorization must be "Bearer <api key>"',
      );
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

    it("a path parameter past the router's length limit → the route's own 400 naming it, or 404 off the routes", async () => {
      const long = 'a'.repeat(1500);
      expectEnvelope(await paid(`/api/apps/${long}`), 400, 'appId must be at most 155 characters');
      const bundle = await paid(`/api/bundles/${'1'.repeat(600)}/reviews?page=2`);
      expect(bundle.statusCode).toBe(400);
      expect(JSON.parse(bundle.body).message).toMatch(/^bundleId must be/);
      expectEnvelope(await paid(`/api/nothing/${long}`), 404, 'not found');
    });
  });

  describe('x402', () => {
    it('a held payment is settled once the data is in hand: payment-response header, then the data', async () => {
      const res = await get('/api/apps/1?country=jp', { 'payment-signature': 'c2lnbmVk' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['payment-response']).toBe('cmVjZWlwdA==');
      expect(pay.calls).toEqual([
        expect.objectContaining({
          paymentSignature: 'c2lnbmVk',
          offer: { price: '3000', networks: 'standard' },
          resource: expect.objectContaining({ url: 'http://gateway.test/api/apps/1?country=jp' }),
          route: 'apps.get',
        }),
      ]);
      expect(debit.calls).toHaveLength(0);
      expect(catalog.calls).toHaveLength(1);
      expect(settle.calls).toEqual([expect.objectContaining({ hold: STAND_IN_X402_HOLD, route: 'apps.get' })]);
      expect(x402Release.calls).toHaveLength(0);
    });

    it('a call that fails after the payment is held releases it, unsettled', async () => {
      catalog.handler = () => {
        throw { code: ErrorCode.UpstreamBadResponse, message: 'upstream store answered a body that is not JSON' };
      };
      const res = await get('/api/apps/1', { 'payment-signature': 'c2lnbmVk' });
      expectEnvelope(res, 502, 'upstream store answered a body that is not JSON; nothing was charged');
      expect(res.headers['payment-response']).toBeUndefined();
      expect(settle.calls).toHaveLength(0);
      expect(await x402Release.asked(1)).toEqual([{ hold: STAND_IN_X402_HOLD }]);
    });

    it('an invalid request with a payment → 400 and the payment is never sent to payments', async () => {
      expectEnvelope(await get('/api/apps?term=', { 'payment-signature': 'c2lnbmVk' }), 400, 'term is required');
      expect(pay.calls).toHaveLength(0);
    });
  });

  describe('top-up', () => {
    const post = (url: string, headers: Record<string, string> = {}) => request('POST', url, headers);

    it.each([
      ['/api/credits/topup', 'amount is required'],
      ['/api/credits/topup?amount=0.5', 'amount must be a USD amount from 1 to 10000 with at most 6 decimals'],
      ['/api/credits/topup?amount=1.0000001', 'amount must be a USD amount from 1 to 10000 with at most 6 decimals'],
      ['/api/credits/topup?amount=10000.01', 'amount must be a USD amount from 1 to 10000 with at most 6 decimals'],
      ['/api/credits/topup?amount=abc', 'amount must be a USD amount from 1 to 10000 with at most 6 decimals'],
      ['/api/credits/topup?amount=1&amount=2', 'amount must be given only once'],
    ])('%s → 400 %s', async (url, message) => {
      expectEnvelope(await post(url, { 'payment-signature': 'c2lnbmVk' }), 400, message);
      expect(topUp.calls).toHaveLength(0);
    });

    it('unpaid → 402 challenge for exactly that amount', async () => {
      const res = await post('/api/credits/topup?amount=5');
      expectEnvelope(res, 402, 'payment_required');
      expect(decode(res.headers['payment-required']).accepts).toEqual([
        expect.objectContaining({ amount: '5000000', network: 'eip155:8453' }),
      ]);
    });

    it('paid → a new key holding the amount, shown once', async () => {
      const res = await post('/api/credits/topup?amount=5', { 'payment-signature': 'c2lnbmVk' });
      expect(res.statusCode).toBe(200);
      expect(JSON.parse(res.body).data).toEqual({
        apiKey: KEY,
        prefix: KEY.slice(0, 12),
        balance: '5.000000',
        currency: 'USD',
        warning: 'Store this key now: it is shown only this once and cannot be recovered.',
      });
      expect(res.headers['payment-response']).toBe('cmVjZWlwdA==');
      expect(topUp.calls[0]).toMatchObject({ amount: '5000000', paymentSignature: 'c2lnbmVk' });
      expect(topUp.calls[0].keyHash).toBeUndefined();
    });

    it('paid with a key → recharges that key', async () => {
      const res = await post('/api/credits/topup?amount=2.5', {
        'payment-signature': 'c2lnbmVk',
        authorization: `Bearer ${KEY}`,
      });
      expect(JSON.parse(res.body).data).toMatchObject({ balance: '2.500000', credited: '2.500000' });
      expect(topUp.calls[0].keyHash).toMatch(/^[0-9a-f]{64}$/);
    });
  });

  describe('balance', () => {
    it('is free and formatted with six decimals', async () => {
      const res = await paid('/api/credits/balance');
      expect(res.statusCode).toBe(200);
      expect(JSON.parse(res.body)).toEqual({
        status: 200,
        message: 'ok',
        data: { balance: '4.997000', currency: 'USD' },
      });
      expect(debit.calls).toHaveLength(0);
    });

    it('needs a key', async () => {
      expectEnvelope(await get('/api/credits/balance'), 401, 'an api key is required: Authorization: Bearer <api key>');
    });
  });

  it('answers liveness and readiness on the public port, free', async () => {
    expect(JSON.parse((await get('/healthz')).body)).toEqual({ status: 200, message: 'ok', data: { status: 'alive' } });
    const ready = await get('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(JSON.parse(ready.body).data).toEqual({ checks: { nats: 'ok' } });
    expect(debit.calls).toHaveLength(0);
  });

  it('echoes a safe x-request-id and makes one otherwise', async () => {
    expect((await get('/nope', { 'x-request-id': 'trace-123' })).headers['x-request-id']).toBe('trace-123');
    expect((await get('/nope', { 'x-request-id': 'bad id with spaces' })).headers['x-request-id']).toMatch(
      /^[0-9a-f-]{36}$/,
    );
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
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual({
      status: 431,
      message: 'request headers too large',
      data: null,
    });
  });

  describe('answers Node and Fastify give before any route, as envelopes', () => {
    const port = () => (app.getHttpServer().address() as { port: number }).port;
    const raw = async (text: string) => parseResponses(await rawExchange(port(), text));
    afterEach(() => expect(debit.calls).toHaveLength(0));

    function expectRawEnvelope(
      res: { status: number; headers: Record<string, string>; body: string },
      status: number,
      message: string,
    ) {
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.body)).toEqual({ status, message, data: null });
    }

    it("an HTTP/1.1 request without Host → 400 envelope (RFC 9112 §3.2), not Node's bare 400", async () => {
      const [res, ...more] = await raw(
        `GET /api/apps/1 HTTP/1.1\r\nAuthorization: Bearer ${KEY}\r\nX-Request-Id: trace-host\r\n\r\n`,
      );
      expectRawEnvelope(res, 400, 'host header is required');
      expect(res.headers.connection).toBe('close');
      expect(res.headers['x-request-id']).toBe('trace-host');
      expect(more).toEqual([]);
      // HTTP/1.0 has no Host to require: served as before.
      expectRawEnvelope((await raw('GET /nope HTTP/1.0\r\n\r\n'))[0], 404, 'not found');
    });

    it('CONNECT → 405 envelope with Allow, and the connection closed: the gateway is no proxy', async () => {
      const [res, ...more] = await raw(
        'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nX-Request-Id: trace-connect\r\n\r\n',
      );
      expectRawEnvelope(res, 405, 'method not allowed');
      expect(res.headers.allow).toBe('GET, POST');
      expect(res.headers['x-request-id']).toBe('trace-connect');
      expect(more).toEqual([]);
      expectRawEnvelope(
        (await raw(`CONNECT /api/apps/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`))[0],
        405,
        'method not allowed',
      );
    });

    it('an Expect other than 100-continue → 417 envelope; 100-continue still gets its interim answer', async () => {
      const [refused] = await raw(
        'GET /api/apps/1 HTTP/1.1\r\nHost: x\r\nExpect: a-miracle\r\nConnection: close\r\n\r\n',
      );
      expectRawEnvelope(refused, 417, 'expect may only be 100-continue');
      expect(refused.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      const [interim, final] = await raw(
        'GET /api/apps/1 HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n',
      );
      expect(interim.status).toBe(100);
      expectRawEnvelope(final, 402, 'payment_required');
    });

    it('a request line that is not HTTP → 400 envelope on the socket', async () => {
      const [res] = await raw('GET /api/apps/1 HTTQ/1.1\r\nHost: x\r\n\r\n');
      expectRawEnvelope(res, 400, 'malformed request');
      expect(res.headers.connection).toBe('close');
    });

    it('headers that do not arrive in time → 408 envelope on the socket', async () => {
      // Node raises ERR_HTTP_REQUEST_TIMEOUT after headersTimeout (60 s), checked every 30 s: raised here at once.
      const server = app.getHttpServer();
      const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
      const socket = await openSocket(port());
      const read = readUntilClosed(socket);
      socket.write('GET /api/apps/1 HTTP/1.1\r\nHost: x\r\n');
      server.emit(
        'clientError',
        Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }),
        await accepted,
      );
      const [res] = parseResponses(await read);
      expectRawEnvelope(res, 408, 'request timeout');
    });

    it("HEAD on a document → GET's status and headers, no body (RFC 9110 §9.3.2; only priced paths refuse HEAD)", async () => {
      const text = await rawExchange(port(), 'HEAD /openapi.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect(text).toMatch(/^HTTP\/1.1 200 /);
      expect(text.toLowerCase()).toContain('content-type: application/json; charset=utf-8');
      expect(text.endsWith('\r\n\r\n')).toBe(true);
    });

    it.each([
      ['application/json', '{"amount":', 400, "body is not valid json but content-type is set to 'application/json'"],
      ['application/json', '', 400, "body cannot be empty when content-type is set to 'application/json'"],
      ['text/xml', '<amount/>', 415, 'unsupported media type'],
    ])('a %s body %j the parser refuses → %i envelope', async (type, body, status, message) => {
      const res = await fetch(base + '/api/credits/topup?amount=5', {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual({ status, message, data: null });
      expect(topUp.calls).toHaveLength(0);
    });
  });

  it('counts every refusal in appcat_declines_total by a stable reason, whatever answered it', async () => {
    await get('/api/apps?term=');
    await get('/nope');
    await request('PUT', '/api/apps/1');
    await get('/api/credits/balance');
    await rawExchange(
      (app.getHttpServer().address() as { port: number }).port,
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
    );
    const metrics = await app.get(GatewayMetrics).registry.metrics();
    for (const reason of ['invalid_request', 'http_404', 'http_405', 'invalid_key']) {
      expect(metrics).toMatch(new RegExp(`appcat_declines_total\\{reason="${reason}",service="gateway"\\} [1-9]`));
    }
    expect(metrics).not.toMatch(/term is required/);
  });
});
