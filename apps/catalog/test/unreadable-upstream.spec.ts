import { ErrorCode } from '@appcat/contracts';
import { REFERENCE_IDS, TODAYS_SHAPES } from '@appcat/store-emulator';
import { CatalogMetrics } from '@appcat/ops';
import { CatalogSystem } from './support.js';

/** An upstream answer the catalog cannot read is a 502 naming the upstream, counted per route as drift. */
describe('unreadable upstream answers', () => {
  let system: CatalogSystem;
  const counted = async () => {
    const metric = await system.replicas[0]
      .get(CatalogMetrics)
      .registry.getSingleMetric('appcat_upstream_unreadable_total')!
      .get();
    return Object.fromEntries(metric.values.map((v) => [v.labels.route, v.value]));
  };

  beforeAll(async () => {
    system = await CatalogSystem.start({ replicas: 1 });
  });
  afterEach(async () => {
    system.emulator.setDrift(TODAYS_SHAPES);
    await system.reset();
  });
  afterAll(() => system?.stop());

  it("answers UPSTREAM_BAD_RESPONSE for a search grouping we do not know, never an empty list, and counts it under the route's path template", async () => {
    system.emulator.setDrift({ searchGrouping: 'unknown' });
    const host = new URL(system.emulator.url).host;
    for (const term of ['meta', 'essentials']) {
      await expect(system.fetch({ route: 'bundles.search', term, page: 1, country: 'us' })).rejects.toEqual({
        code: ErrorCode.UpstreamBadResponse,
        message: `upstream store answered search results grouped by an unknown type (top) (${host})`,
      });
    }
    // The token moves on the site and the one the catalog holds stops working.
    system.emulator.setDrift({ token: 'nowhere' });
    system.emulator.rotateToken();
    await expect(
      system.fetch({ route: 'bundles.get', bundleId: String(REFERENCE_IDS.bundle), country: 'us' }),
    ).rejects.toMatchObject({ code: ErrorCode.UpstreamBadResponse });
    expect(await counted()).toEqual({ '/api/bundles': 2, '/api/bundles/{bundleId}': 1 });
  });

  it("does not count Apple's own error answers or other failures", async () => {
    const before = await counted();
    await expect(
      system.fetch({ route: 'apps.get', appId: String(REFERENCE_IDS.app), country: 'us', lang: 'xx-yy' }),
    ).rejects.toMatchObject({ code: ErrorCode.UpstreamBadResponse });
    system.emulator.addFault({ status: 503, count: 1 });
    await expect(
      system.fetch({ route: 'developers.get', developerId: String(REFERENCE_IDS.developer) }),
    ).rejects.toMatchObject({ code: ErrorCode.UpstreamHttpError });
    expect(await counted()).toEqual(before);
  });
});
