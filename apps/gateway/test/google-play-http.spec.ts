/*
 * A gateway configured for Google Play (GATEWAY_STORE=google-play): its own routes, documents and MCP
 * tools, the same payments subjects as the App Store's address, and Google Play's catalog subjects.
 */
import { Subject } from '@appcat/contracts';
import { startNatsServer, type ManagedProcess } from '@appcat/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  acceptsFor,
  heldOrDebited,
  serveCredits,
  serveStandIn,
  StandIn,
  startGatewayOnStandIns,
} from './support/stand-ins.js';

const KEY = 'ak_' + 'x'.repeat(43);

describe('a gateway for Google Play', () => {
  let nats: ManagedProcess;
  let responder: NatsConnection;
  let app: NestFastifyApplication;
  let base: string;
  /** Reservations (and one-step debits). */
  const debit = new StandIn(heldOrDebited);
  const accepts = new StandIn(acceptsFor);
  const playCatalog = new StandIn((data) => ({ dataJson: JSON.stringify({ echo: data.query }) }));
  const appleCatalog = new StandIn(() => ({ dataJson: '{"apple":true}' }));

  beforeAll(async () => {
    nats = await startNatsServer();
    responder = await connect({ servers: nats.url });
    serveCredits(responder, debit);
    serveStandIn(responder, Subject.X402Accepts, accepts);
    serveStandIn(responder, Subject.PlayCatalogFetch, playCatalog);
    serveStandIn(responder, Subject.CatalogFetch, appleCatalog);
    ({ app, base } = await startGatewayOnStandIns(nats.url, 'http://play.gateway.test', { store: 'google-play' }));
  });

  afterAll(async () => {
    await app.close();
    await responder.close();
    await nats.stop();
  });

  beforeEach(() => {
    for (const s of [debit, accepts, playCatalog, appleCatalog]) s.calls = [];
  });

  const get = async (url: string, headers: Record<string, string> = {}) => {
    const res = await fetch(base + url, { headers });
    return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
  };
  const paid = (url: string) => get(url, { authorization: `Bearer ${KEY}` });

  it("serves the developers route with a country, asking Google Play's catalog under the same hold", async () => {
    const res = await paid('/api/developers/5700313618786177705?country=DE');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({
      status: 200,
      message: 'ok',
      data: { echo: { route: 'developers.get', developerId: '5700313618786177705', country: 'de' } },
    });
    expect(res.headers['x-credits-remaining']).toBe('4.997000');
    expect(debit.calls).toEqual([expect.objectContaining({ amount: '3000', route: 'developers.get' })]);
    expect(appleCatalog.calls).toEqual([]);

    const app = await paid('/api/apps/com.mojang.minecraftpe?country=JP&lang=ja');
    expect(JSON.parse(app.body).data.echo).toEqual({
      route: 'apps.get',
      appId: 'com.mojang.minecraftpe',
      country: 'jp',
      lang: 'ja',
    });

    const search = await paid('/api/apps?term=%20Chess%20&page=2');
    expect(JSON.parse(search.body).data.echo).toEqual({ route: 'apps.search', term: 'Chess', page: 2, country: 'us' });

    const reviews = await paid('/api/apps/com.mojang.minecraftpe/reviews?sort=helpful&page=3&lang=DE');
    expect(JSON.parse(reviews.body).data.echo).toEqual({
      route: 'apps.reviews',
      appId: 'com.mojang.minecraftpe',
      page: 3,
      country: 'us',
      sort: 'helpful',
      lang: 'de',
    });
    const similar = await paid('/api/apps/com.mojang.minecraftpe/similar?country=gb');
    expect(JSON.parse(similar.body).data.echo).toEqual({
      route: 'apps.similar',
      appId: 'com.mojang.minecraftpe',
      country: 'gb',
    });

    const byName = await paid('/api/developers/Google%20LLC');
    expect(JSON.parse(byName.body).data.echo).toEqual({
      route: 'developers.get',
      developerId: 'Google LLC',
      country: 'us',
    });
  });

  it('offers the developers route on the extended network set, at its own address', async () => {
    const res = await get('/api/developers/Mojang');
    expect(res.status).toBe(402);
    const challenge = JSON.parse(Buffer.from(res.headers['payment-required'], 'base64').toString('utf8'));
    expect(challenge.resource.url).toBe('http://play.gateway.test/api/developers/Mojang');
    expect(challenge.accepts.map((a: { network: string }) => a.network)).toEqual(['eip155:8453', 'eip155:137']);
    expect(accepts.calls).toEqual([
      expect.objectContaining({ offer: expect.objectContaining({ networks: 'extended' }) }),
    ]);
  });

  it('answers 400 naming the parameter and 404 for the App Store-only routes, charging nothing', async () => {
    for (const [url, status, message] of [
      [
        '/api/developers/0123',
        400,
        'developerId must be a numeric Google Play developer id of at most 20 digits, or a developer name',
      ],
      [
        '/api/developers/123456789012345678901',
        400,
        'developerId must be a numeric Google Play developer id of at most 20 digits, or a developer name',
      ],
      ['/api/developers/Mojang?country=zz', 400, 'country must be an ISO 3166-1 alpha-2 country code such as us'],
      ['/api/bundles/1482985563', 404, 'not found'],
      ['/api/apps/com.mojang.minecraftpe/ratings', 404, 'not found'],
      ['/api/apps/com.mojang.minecraftpe/reviews?sort=newest', 400, 'sort must be one of: recent, helpful'],
      ['/api/apps/com.mojang.minecraftpe/reviews?page=11', 400, 'page must be an integer from 1 to 10'],
      ['/api/apps/284882215', 400, 'appId must be an Android package name such as com.example.app'],
    ] as const) {
      const res = await paid(url);
      expect([url, res.status, JSON.parse(res.body)]).toEqual([url, status, { status, message, data: null }]);
    }
    expect(debit.calls).toEqual([]);
    expect(playCatalog.calls).toEqual([]);
  });

  it('publishes its own documents and MCP tools', async () => {
    const openapi = JSON.parse((await get('/openapi.json')).body);
    expect(Object.keys(openapi.paths)).toContain('/api/developers/{developerId}');
    expect(Object.keys(openapi.paths)).not.toContain('/api/bundles');
    expect(openapi.info.title).toMatch(/Google Play/);
    expect((await get('/llms.txt')).body).toContain('http://play.gateway.test/api/developers/5700313618786177705');
    const mcp = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const tools = ((await mcp.json()) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    expect(tools).toEqual([
      'apps_search',
      'apps_get',
      'apps_reviews',
      'apps_similar',
      'developers_get',
      'credits_balance',
    ]);
  });
});
