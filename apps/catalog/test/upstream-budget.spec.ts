import { type CatalogQuery, ErrorCode } from '@appcat/contracts';
import { REFERENCE_IDS } from '@appcat/store-emulator';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { RefreshQueue } from '../src/cache/refresh-queue.js';
import { RefreshWorker } from '../src/cache/refresh-worker.js';
import { RedisRateLimiter } from '../src/upstream/rate-limiter.js';
import { UPSTREAM_HTTP_CLIENT, type UpstreamHttpClient } from '../src/upstream/upstream-http-client.js';
import {
  CatalogSystem,
  catalogClock,
  HeldRequests,
  recordGrants,
  sleep,
  until,
  worstExcess,
  wireErrorOf,
} from './support.js';

const search = (term: string): CatalogQuery => ({ route: 'apps.search', term, page: 1, country: 'us' });
const app = (country: string): CatalogQuery => ({ route: 'apps.get', appId: String(REFERENCE_IDS.app), country });
const infrastructureOf = (system: CatalogSystem, replica: number) => {
  const app = system.replicas[replica];
  return {
    refreshDrainer: app.get(RefreshWorker).refreshDrainer,
    refreshQueue: app.get(RefreshQueue),
    limiter: app.get(RedisRateLimiter),
    http: app.get<symbol, UpstreamHttpClient>(UPSTREAM_HTTP_CLIENT),
  };
};

/** Search terms in the order the emulator received them. */
function recordSearches(system: CatalogSystem): { term: string; at: number }[] {
  const seen: { term: string; at: number }[] = [];
  system.emulator.setRequestHook((request) => {
    if (request.path === '/search') seen.push({ term: request.query.get('term') ?? '', at: performance.now() });
    return undefined;
  });
  return seen;
}

describe('stale-while-revalidate', () => {
  let system: CatalogSystem;
  beforeAll(async () => {
    system = await CatalogSystem.start({
      replicas: 2,
      env: { CACHE_TTL_DETAILS_S: '1', CACHE_REFRESH_INTERVAL_MS: '50' },
    });
    catalogClock.install();
  });
  beforeEach(() => system.reset());
  afterAll(async () => {
    catalogClock.uninstall();
    await system?.stop();
  });

  it('serves a STALE copy at once to every caller while exactly one refresh runs', async () => {
    const fresh = await system.fetch(app('us'));
    expect(fresh.source).toBe('upstream');
    catalogClock.advance(1100);
    // The refresh's lookup is held at the upstream until the test lets it answer: every caller is
    // answered while it is held, so none waited for it.
    const held = new HeldRequests(system.emulator, 'lookup');
    const replies = await Promise.all(Array.from({ length: 40 }, () => system.fetch(app('us'))));
    for (const reply of replies)
      expect(reply).toEqual({
        data: fresh.data,
        source: 'stale',
        ageSeconds: expect.any(Number),
        upstreamSource: 'itunes',
      });
    await until(() => held.held === 1);
    held.release();
    system.emulator.setRequestHook();
    expect(held.arrived).toHaveLength(1);
    // The one refresh lands; then the entry is fresh again and nothing else was asked.
    await until(async () => (await system.fetch(app('us'))).source === 'cache');
    await sleep(300);
    expect(system.emulator.stats().byEndpoint.lookup).toBe(2);
  });

  it('a refresh that fails keeps the stale copy in service and is tried again when next asked for', async () => {
    await system.fetch(app('gb'));
    catalogClock.advance(1100);
    system.emulator.addFault({ match: { endpoint: 'lookup' }, status: 503 });
    expect((await system.fetch(app('gb'))).source).toBe('stale');
    await until(() => system.emulator.stats().byEndpoint.lookup === 2);
    expect((await system.fetch(app('gb'))).source).toBe('stale');
    system.emulator.clearFaults();
    await until(async () => (await system.fetch(app('gb'))).source === 'cache');
  });
});

describe('the refresh queue, shared by two replicas', () => {
  const PER_MIN = 120;
  const BURST = 1;
  const env = {
    CACHE_TTL_SEARCH_S: '1',
    ITUNES_RATE_PER_MIN: String(PER_MIN),
    ITUNES_BURST: String(BURST),
    UPSTREAM_RATE_LIMIT_MAX_WAIT_MS: '1500',
    CACHE_REFRESH_RESERVE_TOKENS: '0',
  };

  /** Searches `terms` once each (within the budget: one at a time), lets them expire, then asks term i i+1 more times (all answered stale). */
  async function staleWithDemand(system: CatalogSystem, terms: string[]): Promise<void> {
    for (const term of terms) expect((await system.fetch(search(term))).source).toBe('upstream');
    catalogClock.advance(1100);
    for (let i = 0; i < terms.length; i++) {
      const replies = await Promise.all(Array.from({ length: i + 1 }, () => system.fetch(search(terms[i]))));
      expect(replies.every((r) => r.source === 'stale')).toBe(true);
    }
  }

  describe('drained turn about by the two replicas', () => {
    let system: CatalogSystem;
    beforeAll(async () => {
      // The drainers' timers stay quiet; the test drives them in turn.
      system = await CatalogSystem.start({ replicas: 2, env: { ...env, CACHE_REFRESH_INTERVAL_MS: '600000' } });
      catalogClock.install();
    });
    afterAll(async () => {
      catalogClock.uninstall();
      await system?.stop();
    });

    it('refreshes the most requested keys first', async () => {
      const terms = ['queue one', 'queue two', 'queue three', 'queue four', 'queue five', 'queue six'];
      await staleWithDemand(system, terms);
      const seen = recordSearches(system);
      const drainers = [0, 1].map((i) => infrastructureOf(system, i).refreshDrainer!);
      for (let turn = 0; seen.length < terms.length && turn < 60; turn++) {
        await drainers[turn % 2].drainOnce();
        await sleep(100);
      }
      expect(seen.map((s) => s.term)).toEqual([...terms].reverse());
      expect(await infrastructureOf(system, 0).refreshQueue.size('itunes')).toBe(0);
    }, 60_000);
  });

  describe('drained by both replicas at once', () => {
    let system: CatalogSystem;
    beforeAll(async () => {
      system = await CatalogSystem.start({ replicas: 2, env: { ...env, CACHE_REFRESH_INTERVAL_MS: '20' } });
      catalogClock.install();
    });
    afterAll(async () => {
      catalogClock.uninstall();
      await system?.stop();
    });

    it('holds the budget: no window of calls exceeds burst + rate × window, and every key is refreshed', async () => {
      const seen = recordSearches(system);
      const grants = recordGrants(system);
      const terms = Array.from({ length: 8 }, (_, i) => `budget ${i}`);
      // The drainers start once the demand is in: a refresh landing while its term is still being asked
      // for would have it queued again and, with a 1 s lifetime, refreshed twice on a slow machine.
      const drainers = [0, 1].map((i) => infrastructureOf(system, i).refreshDrainer!);
      await Promise.all(drainers.map((drainer) => drainer.stop()));
      await staleWithDemand(system, terms);
      for (const drainer of drainers) drainer.start();
      await until(() => seen.length === 2 * terms.length);
      await sleep(500);
      // Each term once to warm, once refreshed: nothing asked twice, and every call had its token.
      expect(seen).toHaveLength(2 * terms.length);
      expect(grants).toHaveLength(2 * terms.length);
      expect(worstExcess(grants, BURST, PER_MIN / 60_000)).toBeLessThanOrEqual(1e-9);
      expect(new Set(seen.slice(terms.length).map((s) => s.term))).toEqual(new Set(terms));
    }, 60_000);
  });
});

/** An HTTP proxy that tunnels CONNECT requests and forwards absolute-form ones; counts both. */
async function startProxy(): Promise<{ url: string; used: () => number; close: () => Promise<void> }> {
  let used = 0;
  const server: Server = createServer((req, res) => {
    used++;
    const upstream = httpRequest(req.url!, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req, socket, head) => {
    used++;
    const [host, port] = (req.url ?? '').split(':');
    const target = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      target.write(head);
      target.pipe(socket);
      socket.pipe(target);
    });
    target.on('error', () => socket.destroy());
    socket.on('error', () => target.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    used: () => used,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('a budget per egress identity', () => {
  // One token every 10 s: a slow machine cannot refill a bucket within a test step.
  const limits = { ITUNES_RATE_PER_MIN: '6', ITUNES_BURST: '3', UPSTREAM_RATE_LIMIT_MAX_WAIT_MS: '0' };

  describe('pods with their own address (UPSTREAM_EGRESS_ID)', () => {
    let system: CatalogSystem;
    beforeAll(async () => {
      system = await CatalogSystem.start({
        replicas: 2,
        env: limits,
        replicaEnv: (i) => ({ UPSTREAM_EGRESS_ID: `pod-${i}` }),
      });
    });
    afterAll(() => system?.stop());

    it('each spends its own bucket: one exhausted leaves the other whole', async () => {
      const settle = (replica: number, tag: string) =>
        Promise.allSettled(Array.from({ length: 6 }, (_, i) => system.via(replica, search(`${tag} ${i}`))));
      const first = await settle(0, 'pod zero');
      expect(first.filter((s) => s.status === 'fulfilled')).toHaveLength(3);
      expect(await infrastructureOf(system, 0).limiter.isExhausted('itunes')).toBe(true);
      expect(await infrastructureOf(system, 1).limiter.isExhausted('itunes')).toBe(false);
      const second = await settle(1, 'pod one');
      expect(second.filter((s) => s.status === 'fulfilled')).toHaveLength(3);
      expect(await infrastructureOf(system, 1).limiter.isExhausted('itunes')).toBe(true);
      // Hosts without a limit are never exhausted.
      expect(await infrastructureOf(system, 1).limiter.isExhausted('apple-amp')).toBe(false);
      expect(system.emulator.stats().byEndpoint.search).toBe(6);
    });
  });

  describe('proxies (UPSTREAM_EGRESS_PROXIES)', () => {
    let system: CatalogSystem;
    let proxies: Awaited<ReturnType<typeof startProxy>>[];
    beforeAll(async () => {
      proxies = await Promise.all([startProxy(), startProxy()]);
      system = await CatalogSystem.start({
        replicas: 1,
        env: { ...limits, UPSTREAM_EGRESS_PROXIES: proxies.map((p) => p.url).join(',') },
      });
    });
    afterAll(async () => {
      await system?.stop();
      await Promise.all((proxies ?? []).map((p) => p.close()));
    });

    it('sends through each proxy and gives each its own bucket; a cold miss past both is a 502-class error naming the budget', async () => {
      const settled = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => system.fetch(search(`proxied ${i}`))),
      );
      expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(6);
      expect(system.emulator.stats().byEndpoint.search).toBe(6);
      for (const proxy of proxies) expect(proxy.used()).toBeGreaterThan(0);
      expect(
        await wireErrorOf(
          infrastructureOf(system, 0).http.get({
            url: new URL(`${system.emulator.url}/search?term=x`),
            upstream: 'itunes',
          }),
        ),
      ).toEqual({
        code: ErrorCode.UpstreamThrottled,
        message: expect.stringMatching(
          new RegExp(
            `^upstream store rate limit reached: 6 calls a minute to ${new URL(system.emulator.url).host} from each of 2 egresses; retry after \\d+ s$`,
          ),
        ),
      });
    });
  });
});
