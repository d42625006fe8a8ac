import { type CatalogQuery, type CatalogReply, type CatalogRequest, ErrorCode, Subject } from '@appcat/contracts';
import { REFERENCE_IDS, startStoreEmulator, type StoreEmulator } from '@appcat/store-emulator';
import { type ManagedProcess, startNatsServer } from '@appcat/testing';
import type { INestMicroservice } from '@nestjs/common';
import { type ClientProxy, ClientProxyFactory, Transport } from '@nestjs/microservices';
import { randomUUID } from 'node:crypto';
import { firstValueFrom } from 'rxjs';
import { createCatalogApp } from '../src/catalog-app.js';
import type { ListData } from '../src/store/store-adapter.js';
import { FetchUpstreamHttpClient } from '../src/upstream/upstream-http-client.js';
import { configFor, CountingHttpClient, requestsDuring } from './support.js';

const ROUTE_QUERIES: CatalogQuery[] = [
  { route: 'apps.search', term: 'chess', page: 1, country: 'us' },
  { route: 'apps.get', appId: String(REFERENCE_IDS.app), country: 'us' },
  { route: 'apps.reviews', appId: 'com.facebook.Facebook', page: 1, country: 'us', sort: 'helpful' },
  { route: 'apps.similar', appId: String(REFERENCE_IDS.app), country: 'us', lang: 'en-us' },
  { route: 'bundles.search', term: 'essentials', page: 1, country: 'us' },
  { route: 'bundles.get', bundleId: String(REFERENCE_IDS.bundle), country: 'us' },
  { route: 'bundles.reviews', bundleId: String(REFERENCE_IDS.bundle), page: 1, country: 'us', sort: 'recent' },
  { route: 'bundles.similar', bundleId: String(REFERENCE_IDS.bundle), country: 'us' },
  { route: 'developers.get', developerId: String(REFERENCE_IDS.developer) },
];

describe('catalog service over NATS', () => {
  let nats: ManagedProcess;
  let emulator: StoreEmulator;
  let client: ClientProxy;
  const replicas: { app: INestMicroservice; upstream: CountingHttpClient }[] = [];

  const fetchCatalog = (query: CatalogQuery) =>
    firstValueFrom(client.send<CatalogReply, CatalogRequest>(Subject.CatalogFetch, { query, requestId: randomUUID() }));

  beforeAll(async () => {
    [nats, emulator] = await Promise.all([startNatsServer(), startStoreEmulator()]);
    const config = configFor(emulator.url, { NATS_URL: nats.url });
    for (let i = 0; i < 2; i++) {
      const upstream = new CountingHttpClient(new FetchUpstreamHttpClient({ timeoutMs: config.upstreamTimeoutMs, userAgent: config.apple.userAgent }));
      const app = await createCatalogApp(config, { upstreamHttpClient: upstream, logger: ['error'] });
      await app.listen();
      replicas.push({ app, upstream });
    }
    client = ClientProxyFactory.create({ transport: Transport.NATS, options: { servers: [nats.url] } });
    await client.connect();
  });

  afterAll(async () => {
    await client?.close();
    await Promise.all(replicas.map((r) => r.app.close()));
    await emulator?.close();
    await nats?.stop();
  });

  it('answers each request exactly once across two replicas in the queue group', async () => {
    const before = replicas.map((r) => r.upstream.count);
    const requests = 24;
    let replies: CatalogReply[] = [];
    const served = await requestsDuring(emulator, async () => {
      replies = await Promise.all(
        Array.from({ length: requests }, () => fetchCatalog({ route: 'apps.get', appId: String(REFERENCE_IDS.chessApp), country: 'us' })),
      );
    });
    expect(replies.every((r) => (r.data as ListData).resultCount === 1)).toBe(true);
    // One lookup per request: a request handled by both replicas would be served twice.
    expect(served).toBe(requests);
    const perReplica = replicas.map((r, i) => r.upstream.count - before[i]);
    expect(perReplica[0] + perReplica[1]).toBe(requests);
    expect(perReplica.every((n) => n > 0)).toBe(true);
  });

  it.each(ROUTE_QUERIES.map((q) => [q.route, q] as const))('%s returns data', async (_route, query) => {
    const { data } = await fetchCatalog(query);
    const list = data as ListData;
    expect(list.resultCount).toBeGreaterThan(0);
    expect(list.results).toHaveLength(list.resultCount);
  });

  it('sends upstream failures and bad requests as typed errors', async () => {
    await expect(fetchCatalog({ route: 'apps.get', appId: String(REFERENCE_IDS.app), country: 'us', lang: 'xx' })).rejects.toMatchObject({
      code: ErrorCode.UpstreamBadResponse,
      message: expect.stringContaining('Invalid value(s) for key(s): [language]'),
    });
    await expect(fetchCatalog({ route: 'apps.nope' } as unknown as CatalogQuery)).rejects.toMatchObject({ code: ErrorCode.InvalidArgument });
    emulator.setRequestHook(() => ({ response: { status: 503, body: '' } }));
    try {
      await expect(fetchCatalog({ route: 'developers.get', developerId: '1' })).rejects.toEqual({
        code: ErrorCode.UpstreamHttpError,
        message: `upstream store answered HTTP 503 (${new URL(emulator.url).host})`,
      });
    } finally {
      emulator.setRequestHook();
    }
  });
});
