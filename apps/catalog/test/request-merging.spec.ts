import { type CatalogQuery, ErrorCode } from '@appcat/contracts';
import { REFERENCE_IDS } from '@appcat/store-emulator';
import { CatalogSystem, type DecodedReply, HeldRequests, listOf, until, wireErrorOf } from './support.js';
import { resourceKeys } from '../src/cache/resource-keys.js';
import { Batcher } from '../src/upstream/batcher.js';
import { RedisRateLimiter } from '../src/upstream/rate-limiter.js';

/** The lock a dead replica left behind. */
const DEAD_LOCK_TTL_MS = 400;

const facebook = (country = 'us'): CatalogQuery => ({ route: 'apps.get', appId: String(REFERENCE_IDS.app), country });

describe('one upstream call per resource, across requests and replicas', () => {
  let system: CatalogSystem;

  beforeAll(async () => {
    // Room for the 80 lookups sent to one replica at once below: a replica batches only the fetches it
    // works on, at most CATALOG_MAX_IN_FLIGHT (fetch-budget.spec.ts tests the bound). Waiting for a
    // lock keeps the test default (30 s): no healthy wait here comes near it.
    system = await CatalogSystem.start({ replicas: 2, env: { CATALOG_MAX_IN_FLIGHT: '100' } });
  });
  beforeEach(() => system.reset());
  afterAll(() => system?.stop());

  it('1,000 concurrent identical requests over NATS, two replicas: exactly one upstream call', async () => {
    // The first call is held at the upstream until the other 999 are at both replicas, waiting for it.
    const held = new HeldRequests(system.emulator, 'lookup');
    const sent = Promise.all(Array.from({ length: 1000 }, () => system.fetch(facebook())));
    await until(async () => held.held === 1 && (await system.pending()) === 1000);
    held.release();
    const replies = await sent;
    expect(system.emulator.stats().byEndpoint.lookup).toBe(1);
    expect(system.emulator.stats().requests).toBe(1);
    expect(new Set(replies.map((r) => JSON.stringify(r.data))).size).toBe(1);
    expect(listOf(replies[0]).results[0]).toMatchObject({ trackId: REFERENCE_IDS.app });
    // Only the request that made the call says so; every other one was spared a call.
    expect(replies.filter((r) => r.source === 'upstream')).toHaveLength(1);
    expect(replies.filter((r) => r.source === 'cache')).toHaveLength(999);
  });

  it('a replica answers from what another replica fetched', async () => {
    const first = await system.via(0, facebook('gb'));
    const second = await system.via(1, facebook('gb'));
    expect([first.source, second.source]).toEqual(['upstream', 'cache']);
    expect(second.data).toEqual(first.data);
    expect(system.emulator.stats().requests).toBe(1);
  });

  it("identical requests at two replicas at once: one waits for the other's call", async () => {
    // The call is held at the upstream until all four are at the replicas.
    const held = new HeldRequests(system.emulator, 'search');
    const query: CatalogQuery = { route: 'apps.search', term: 'chess', page: 1, country: 'de' };
    const sent = Promise.all([system.via(0, query), system.via(1, query), system.via(0, query), system.via(1, query)]);
    await until(async () => held.held === 1 && (await system.pending()) === 4);
    held.release();
    const replies = await sent;
    expect(system.emulator.stats().byEndpoint.search).toBe(1);
    expect(replies.map((r) => r.source).sort()).toEqual(['cache', 'cache', 'cache', 'upstream']);
  });

  it('a replica that died holding the lock delays the others by about the lock TTL, not the whole wait', async () => {
    // The dead replica's lock on France's Facebook lookup: it will never fill the entry.
    const key = resourceKeys(system.config.redis.keyPrefix, `apple:app:fr:-:id:${REFERENCE_IDS.app}`).lock;
    await system.redis.set(key, 'dead-replica', 'PX', DEAD_LOCK_TTL_MS);
    const began = performance.now();
    const reply = await system.fetch(facebook('fr'));
    const waited = performance.now() - began;
    expect(reply.source).toBe('upstream');
    expect(listOf(reply).resultCount).toBe(1);
    expect(waited).toBeGreaterThanOrEqual(DEAD_LOCK_TTL_MS * 0.5);
    // Had it waited for the lock's holder the whole CACHE_LOCK_WAIT_MS, it would have failed as a timeout.
    expect(waited).toBeLessThan(system.config.cache.lockWaitMs);
    expect(system.emulator.stats().requests).toBe(1);
  });

  it('looks up apps requested at about the same time in one call per storefront', async () => {
    const ids = system.emulator
      .catalogue()
      .apps.filter((a) => a.storefronts.includes('us') && a.storefronts.includes('gb'))
      .slice(0, 40)
      .map((a) => String(a.trackId));
    // The first batch of each storefront waits for admission (its rate-limiter token) until every
    // request has joined a batch: a batch waiting for admission keeps taking ids, as it does behind a
    // scarce budget, so what joins it does not depend on how fast the machine delivers the requests.
    let joined = 0;
    const load = Batcher.prototype.load;
    Batcher.prototype.load = function (this: Batcher<unknown, unknown>, ...args: Parameters<typeof load>) {
      joined++;
      return load.apply(this, args);
    };
    const limiter = system.replicas[0].get(RedisRateLimiter);
    limiter.take = async (upstream) => {
      await until(() => joined === 2 * ids.length);
      return RedisRateLimiter.prototype.take.call(limiter, upstream);
    };
    let replies: DecodedReply[];
    try {
      replies = await Promise.all(
        ids.flatMap((appId) => [
          system.via(0, { route: 'apps.get', appId, country: 'us' }),
          system.via(0, { route: 'apps.get', appId, country: 'gb' }),
        ]),
      );
    } finally {
      Batcher.prototype.load = load;
      delete (limiter as Partial<Pick<RedisRateLimiter, 'take'>>).take;
    }
    expect(replies.every((r) => listOf(r).resultCount === 1)).toBe(true);
    expect(replies.map((r) => String(listOf(r).results[0].trackId))).toEqual(ids.flatMap((id) => [id, id]));
    expect(system.emulator.stats().byEndpoint.lookup).toBe(2);
  });

  it('an app found by bundle identifier is also cached under its track id', async () => {
    const byBundle = await system.fetch({ route: 'apps.get', appId: 'com.facebook.Facebook', country: 'ca' });
    const byId = await system.fetch(facebook('ca'));
    expect(byId).toMatchObject({ source: 'cache', data: byBundle.data });
    expect(system.emulator.stats().requests).toBe(1);
  });

  it('derived routes reuse cached resources: bundle reviews and similar bundles read the bundle and its apps once', async () => {
    const bundle = String(REFERENCE_IDS.bundle);
    await system.fetch({ route: 'bundles.get', bundleId: bundle, country: 'us' });
    const members = (
      listOf(await system.fetch({ route: 'bundles.get', bundleId: bundle, country: 'us' })).results[0] as {
        relationships: { apps: { data: unknown[] } };
      }
    ).relationships.apps.data.length;
    system.emulator.resetStats();
    await system.fetch({ route: 'bundles.reviews', bundleId: bundle, page: 1, country: 'us', sort: 'recent' });
    expect(system.emulator.stats().byEndpoint).toMatchObject({ 'amp-app-bundles': 0, reviews: members });
    // The member apps' review pages are the apps' own: asking for an app's reviews now costs nothing.
    const facebookReviews = await system.fetch({
      route: 'apps.reviews',
      appId: String(REFERENCE_IDS.app),
      page: 1,
      country: 'us',
      sort: 'recent',
    });
    expect(facebookReviews.source).toBe('cache');
    await system.fetch({ route: 'bundles.similar', bundleId: bundle, country: 'us' });
    // One batched web catalogue call (ids=) for every member's similar list.
    expect(system.emulator.stats().byEndpoint).toMatchObject({ 'amp-app-bundles': 0, 'amp-apps': 1, reviews: members });
    const similar = await system.fetch({ route: 'apps.similar', appId: String(REFERENCE_IDS.app), country: 'us' });
    expect(similar.source).toBe('cache');
  });

  it('caches the whole search list once and slices every page from it', async () => {
    const pages = await Promise.all(
      [1, 2, 3].map((page) => system.fetch({ route: 'apps.search', term: 'Chess', page, country: 'us' })),
    );
    const again = await system.fetch({ route: 'apps.search', term: '  chess ', page: 4, country: 'us' });
    expect(system.emulator.stats().byEndpoint.search).toBe(1);
    expect(again.source).toBe('cache');
    const ids = pages.flatMap((p) => listOf(p).results.map((r) => r.trackId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a failed upstream call is not retried by every waiting request', async () => {
    // The failing call is held at the upstream until all twenty are at the replicas.
    const held = new HeldRequests(system.emulator, 'lookup', { response: { status: 503, body: '' } });
    const sent = Promise.all(Array.from({ length: 20 }, (_, i) => wireErrorOf(system.via(i % 2, facebook('br')))));
    await until(async () => held.held === 1 && (await system.pending()) === 20);
    held.release();
    const errors = await sent;
    expect(errors.every((e) => e.code === ErrorCode.UpstreamHttpError)).toBe(true);
    expect(system.emulator.stats().byEndpoint.lookup).toBe(1);
  });
});

describe('waiting for a lock that is never released', () => {
  const LOCK_WAIT_MS = 1500;
  let system: CatalogSystem;

  beforeAll(async () => {
    system = await CatalogSystem.start({ replicas: 1, env: { CACHE_LOCK_WAIT_MS: String(LOCK_WAIT_MS) } });
  });
  afterAll(() => system?.stop());

  it('waits a bounded time, then fails as a timeout', async () => {
    const key = resourceKeys(system.config.redis.keyPrefix, `apple:app:jp:-:id:${REFERENCE_IDS.app}`).lock;
    // A holder that keeps its lock for a minute and never finishes: the waiter gives up after
    // CACHE_LOCK_WAIT_MS, long before the lock goes.
    const STUCK_MS = 60_000;
    await system.redis.set(key, 'stuck-replica', 'PX', STUCK_MS);
    const began = performance.now();
    const error = await system.fetch(facebook('jp')).catch((e: unknown) => e);
    const waited = performance.now() - began;
    expect(error).toMatchObject({
      code: ErrorCode.UpstreamTimeout,
      message: expect.stringContaining(`within ${LOCK_WAIT_MS} ms`),
    });
    expect(waited).toBeGreaterThanOrEqual(LOCK_WAIT_MS * 0.9);
    expect(waited).toBeLessThan(STUCK_MS);
    expect(await system.redis.get(key)).toBe('stuck-replica');
    expect(system.emulator.stats().requests).toBe(0);
  });
});
