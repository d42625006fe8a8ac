import { type CatalogQuery, ErrorCode } from '@appcat/contracts';
import { REFERENCE_IDS } from '@appcat/store-emulator';
import { CatalogSystem, type DecodedReply, listOf } from './support.js';

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
  let system: CatalogSystem;

  beforeAll(async () => {
    system = await CatalogSystem.start({ replicas: 2 });
  });
  afterAll(() => system?.stop());

  it.each(ROUTE_QUERIES.map((q) => [q.route, q] as const))(
    '%s returns data, from the upstream first and then from the cache',
    async (_route, query) => {
      const first = await system.fetch(query);
      expect(listOf(first).resultCount).toBeGreaterThan(0);
      expect(listOf(first).results).toHaveLength(listOf(first).resultCount);
      const again: DecodedReply = await system.fetch(query);
      expect(again).toEqual({
        data: first.data,
        source: 'cache',
        ageSeconds: expect.any(Number),
        ageMs: expect.any(Number),
        freshForMs: expect.any(Number),
        // The sources that produced the data, named on the fetch and on the cache hit alike.
        upstreamSource: first.upstreamSource,
      });
      expect(first.upstreamSource).toMatch(/^[a-z-]+(, [a-z-]+)*$/);
      expect(again.ageSeconds).toBeLessThan(5);
      expect(again.ageSeconds).toBe(Math.floor(again.ageMs! / 1000));
      // Fresh for the rest of its shortest TTL (half an hour, recent reviews, at the default settings).
      expect(again.freshForMs).toBeGreaterThanOrEqual(30 * 60_000 - again.ageMs!);
    },
  );

  it('says "upstream" when it asked the upstream for the answer', async () => {
    await system.reset();
    const reply = await system.fetch({ route: 'apps.get', appId: String(REFERENCE_IDS.chessApp), country: 'gb' });
    expect(reply.source).toBe('upstream');
    expect(reply.ageSeconds).toBeUndefined();
    // Details are fresh for 12 hours by default: the reply says so, for the gateway's near cache.
    expect(reply.ageMs! + reply.freshForMs!).toBe(12 * 3_600_000);
  });

  it('sends upstream failures and bad requests as typed errors', async () => {
    await system.reset();
    await expect(
      system.fetch({ route: 'apps.get', appId: String(REFERENCE_IDS.app), country: 'us', lang: 'xx' }),
    ).rejects.toMatchObject({
      code: ErrorCode.UpstreamBadResponse,
      message: expect.stringContaining('Invalid value(s) for key(s): [language]'),
    });
    await expect(system.fetch({ route: 'apps.nope' } as unknown as CatalogQuery)).rejects.toMatchObject({
      code: ErrorCode.InvalidArgument,
    });
    // The payload is read by its subject's schema (libs/contracts wire-payloads.ts), naming the field.
    await expect(system.fetch({ route: 'apps.get', country: 'us' } as unknown as CatalogQuery)).rejects.toEqual({
      code: ErrorCode.InvalidArgument,
      message: 'query.appId must be a string of 1 to 256 characters',
    });
    system.emulator.addFault({ status: 503 });
    await expect(system.fetch({ route: 'developers.get', developerId: '1' })).rejects.toEqual({
      code: ErrorCode.UpstreamHttpError,
      message: `upstream store answered HTTP 503 (${new URL(system.emulator.url).host})`,
    });
  });
});
