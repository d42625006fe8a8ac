import { type CatalogQuery, ErrorCode } from '@appcat/contracts';
import { REFERENCE_IDS } from '@appcat/store-emulator';
import { CatalogSystem } from './support.js';

const search = (term: string): CatalogQuery => ({ route: 'apps.search', term, page: 1, country: 'us' });
const terms = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} ${i}`);

/** Times (ms) at which the emulator received each search request. */
function recordSearchTimes(system: CatalogSystem): number[] {
  const times: number[] = [];
  system.emulator.setRequestHook((request) => {
    if (request.path === '/search') times.push(performance.now());
    return undefined;
  });
  return times;
}

/**
 * The most requests seen in any window, measured against what the bucket allows in that window:
 * `burst + rate × window`. Positive means more went out than the limiter should have allowed.
 */
function worstExcess(times: number[], burst: number, perMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let worst = -Infinity;
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i; j < sorted.length; j++) worst = Math.max(worst, j - i + 1 - (burst + perMs * (sorted[j] - sorted[i])));
  }
  return worst;
}

describe('rate limiter per upstream host, shared by the replicas', () => {
  describe('refusing at once (UPSTREAM_RATE_LIMIT_MAX_WAIT_MS=0)', () => {
    let system: CatalogSystem;
    beforeAll(async () => {
      system = await CatalogSystem.start({ replicas: 2, env: { ITUNES_RATE_PER_MIN: '60', ITUNES_BURST: '3', UPSTREAM_RATE_LIMIT_MAX_WAIT_MS: '0' } });
    });
    afterAll(() => system?.stop());

    it('lets the burst through across both replicas and refuses the rest without calling', async () => {
      const asked = terms(10, 'chess');
      const settled = await Promise.allSettled(asked.map((term, i) => system.via(i % 2, search(term))));
      const refused = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => s.reason.getError());
      expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(3);
      expect(system.emulator.stats().byEndpoint.search).toBe(3);
      expect(refused).toHaveLength(7);
      expect(refused[0]).toEqual({
        code: ErrorCode.UpstreamThrottled,
        message: `upstream store rate limit reached: 60 calls a minute to ${new URL(system.emulator.url).host}; retry after 1 s`,
      });
      // Cached answers and other hosts are not limited.
      const served = asked.find((_, i) => settled[i].status === 'fulfilled')!;
      expect((await system.fetch(search(served))).source).toBe('cache');
      expect((await system.fetch({ route: 'apps.similar', appId: String(REFERENCE_IDS.app), country: 'us' })).source).toBe('upstream');
    });
  });

  describe('waiting a bounded time for a token', () => {
    // A small rate: spacing (100 ms) far above what one request costs this process, so event-loop
    // lag cannot bunch the calls the limiter spread out.
    const PER_MIN = 600;
    const BURST = 2;
    const MAX_WAIT_MS = 1000;
    const perMs = PER_MIN / 60_000;
    let system: CatalogSystem;
    beforeAll(async () => {
      system = await CatalogSystem.start({
        replicas: 2,
        env: { ITUNES_RATE_PER_MIN: String(PER_MIN), ITUNES_BURST: String(BURST), UPSTREAM_RATE_LIMIT_MAX_WAIT_MS: String(MAX_WAIT_MS) },
      });
    });
    beforeEach(() => system.reset());
    afterAll(() => system?.stop());

    it('holds the configured rate under load: no window sees more than burst + rate × window', async () => {
      const times = recordSearchTimes(system);
      const began = performance.now();
      const replies = await Promise.all(terms(11, 'zzqx').map((term, i) => system.via(i % 2, search(term))));
      const elapsed = performance.now() - began;
      expect(replies.every((r) => r.source === 'upstream')).toBe(true);
      expect(times).toHaveLength(11);
      // One request of tolerance for jitter between taking the token and reaching the emulator.
      expect(worstExcess(times, BURST, perMs)).toBeLessThanOrEqual(1);
      // 9 tokens beyond the burst at 10 a second cannot take less than 900 ms.
      expect(elapsed).toBeGreaterThanOrEqual((11 - BURST) / perMs - 10);
    });

    it('refuses whatever would wait longer than the bound, instead of queueing it', async () => {
      const times = recordSearchTimes(system);
      const began = performance.now();
      const settled = await Promise.allSettled(terms(30, 'qzzx').map((term, i) => system.via(i % 2, search(term))));
      const elapsed = performance.now() - began;
      const served = settled.filter((s) => s.status === 'fulfilled').length;
      const refused = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => s.reason.getError().code);
      // At least what the burst and the longest wait allow; at most what the bucket allows over the run.
      expect(served).toBeGreaterThanOrEqual(BURST + Math.floor(MAX_WAIT_MS * perMs));
      expect(served).toBeLessThanOrEqual(BURST + Math.ceil(elapsed * perMs) + 1);
      expect(refused).toEqual(Array(30 - served).fill(ErrorCode.UpstreamThrottled));
      expect(times).toHaveLength(served);
      expect(worstExcess(times, BURST, perMs)).toBeLessThanOrEqual(1);
    });
  });
});
