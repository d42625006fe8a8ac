import { type CatalogQuery, ErrorCode } from '@appcat/contracts';
import { REFERENCE_IDS } from '@appcat/store-emulator';
import { CatalogSystem, HeldRequests, listOf, requestsDuring, until } from './support.js';

describe('when Redis goes away', () => {
  let system: CatalogSystem;

  beforeAll(async () => {
    // Without Redis, merging covers the fetches a replica runs at once: room for all 50 sent below.
    // One token a minute: however slow the machine, no token is refilled while the test runs.
    system = await CatalogSystem.start({
      replicas: 1,
      env: {
        ITUNES_RATE_PER_MIN: '1',
        ITUNES_BURST: '3',
        UPSTREAM_RATE_LIMIT_MAX_WAIT_MS: '0',
        CATALOG_MAX_IN_FLIGHT: '100',
      },
    });
  });
  afterAll(() => system?.stop());

  it('keeps answering from the upstream, merging within the replica and limiting per replica', async () => {
    const query: CatalogQuery = { route: 'apps.get', appId: String(REFERENCE_IDS.app), country: 'us' };
    expect((await system.fetch(query)).source).toBe('upstream');
    expect((await system.fetch(query)).source).toBe('cache');
    await system.redisServer.kill();
    // A peek without Redis has no fresh entry to read: no answer, and nothing asked of the upstream.
    expect(await requestsDuring(system.emulator, () => expect(system.peek(query)).resolves.toBeNull())).toBe(0);
    system.emulator.resetStats();

    // The one lookup is held at the upstream until all fifty are at the replica.
    const held = new HeldRequests(system.emulator, 'lookup');
    const sent = Promise.all(Array.from({ length: 50 }, () => system.fetch(query)));
    await until(async () => held.held === 1 && (await system.pending()) === 50);
    held.release();
    system.emulator.setRequestHook();
    const merged = await sent;
    expect(merged.every((r) => listOf(r).resultCount === 1)).toBe(true);
    expect(system.emulator.stats().byEndpoint.lookup).toBe(1);

    // The replica's own bucket (burst 3) took one token above; two more calls, then refusals.
    const settled = await Promise.allSettled(
      ['a', 'b', 'c', 'd'].map((term) => system.fetch({ route: 'apps.search', term, page: 1, country: 'us' })),
    );
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(2);
    const refused = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => s.reason);
    expect(refused).toEqual([
      expect.objectContaining({ code: ErrorCode.UpstreamThrottled }),
      expect.objectContaining({ code: ErrorCode.UpstreamThrottled }),
    ]);
  });
});
