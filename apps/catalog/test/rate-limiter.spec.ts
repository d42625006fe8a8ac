import { type CatalogQuery, ErrorCode } from '@appcat/contracts';
import { REFERENCE_IDS } from '@appcat/store-emulator';
import { CatalogSystem, recordGrants, worstExcess } from './support.js';

const search = (term: string): CatalogQuery => ({ route: 'apps.search', term, page: 1, country: 'us' });
const terms = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} ${i}`);

/** When (Date.now()) the emulator received each search whose term starts with `tag`. */
function recordSearchTimes(system: CatalogSystem, tag: string): number[] {
  const times: number[] = [];
  system.emulator.setRequestHook((request) => {
    if (request.path === '/search' && request.query.get('term')?.startsWith(tag)) times.push(Date.now());
    return undefined;
  });
  return times;
}

describe('rate limiter per upstream host, shared by the replicas', () => {
  describe('refusing at once (UPSTREAM_RATE_LIMIT_MAX_WAIT_MS=0)', () => {
    // One token every 10 s: however slowly a loaded machine sends the ten, the bucket cannot refill.
    const PER_MIN = 6;
    let system: CatalogSystem;
    beforeAll(async () => {
      system = await CatalogSystem.start({
        replicas: 2,
        env: { ITUNES_RATE_PER_MIN: String(PER_MIN), ITUNES_BURST: '3', UPSTREAM_RATE_LIMIT_MAX_WAIT_MS: '0' },
      });
    });
    afterAll(() => system?.stop());

    it('lets the burst through across both replicas and refuses the rest without calling', async () => {
      const asked = terms(10, 'chess');
      const settled = await Promise.allSettled(asked.map((term, i) => system.via(i % 2, search(term))));
      const refused = settled
        .filter((s): s is PromiseRejectedResult => s.status === 'rejected')
        .map((s) => s.reason.getError());
      expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(3);
      expect(system.emulator.stats().byEndpoint.search).toBe(3);
      expect(refused).toHaveLength(7);
      // Retry after the time the next token takes: at most 10 s.
      expect(refused[0]).toEqual({
        code: ErrorCode.UpstreamThrottled,
        message: expect.stringMatching(
          new RegExp(
            `^upstream store rate limit reached: ${PER_MIN} calls a minute to ${new URL(system.emulator.url).host}; retry after ([1-9]|10) s$`,
          ),
        ),
      });
      // Cached answers and other hosts are not limited.
      const served = asked.find((_, i) => settled[i].status === 'fulfilled')!;
      expect((await system.fetch(search(served))).source).toBe('cache');
      expect(
        (await system.fetch({ route: 'apps.similar', appId: String(REFERENCE_IDS.app), country: 'us' })).source,
      ).toBe('upstream');
    });
  });

  describe('waiting a bounded time for a token', () => {
    // Windows are measured on the grants' due times, not on when calls reached the emulator: a loaded
    // machine delays calls by varying amounts, which can bunch them whatever the limiter did.
    // One token every 200 ms: a call that skipped its wait would arrive well before its token was due,
    // even on a loaded machine that is slow to send it.
    const PER_MIN = 300;
    const BURST = 2;
    const MAX_WAIT_MS = 2000;
    const perMs = PER_MIN / 60_000;
    let system: CatalogSystem;
    beforeAll(async () => {
      system = await CatalogSystem.start({
        replicas: 2,
        env: {
          ITUNES_RATE_PER_MIN: String(PER_MIN),
          ITUNES_BURST: String(BURST),
          UPSTREAM_RATE_LIMIT_MAX_WAIT_MS: String(MAX_WAIT_MS),
        },
      });
    });
    beforeEach(() => system.reset());
    afterAll(() => system?.stop());

    it('holds the configured rate under load: no window sees more than burst + rate × window', async () => {
      const grants = recordGrants(system);
      const times = recordSearchTimes(system, 'zzqx');
      const began = performance.now();
      const replies = await Promise.all(terms(11, 'zzqx').map((term, i) => system.via(i % 2, search(term))));
      const elapsed = performance.now() - began;
      expect(replies.every((r) => r.source === 'upstream')).toBe(true);
      expect(times).toHaveLength(11);
      expect(grants).toHaveLength(11);
      // The limiter's schedule stays within the bucket (to rounding) …
      expect(worstExcess(grants, BURST, perMs)).toBeLessThanOrEqual(1e-9);
      // … and no call went out before its token was due (both clocks are this machine's; 5 ms for rounding).
      const due = [...grants].sort((a, b) => a - b);
      [...times].sort((a, b) => a - b).forEach((at, i) => expect(at).toBeGreaterThanOrEqual(due[i] - 5));
      // 9 tokens beyond the burst at 5 a second cannot take less than 1.8 s.
      expect(elapsed).toBeGreaterThanOrEqual((11 - BURST) / perMs - 10);
    });

    it('refuses whatever would wait longer than the bound, instead of queueing it', async () => {
      const grants = recordGrants(system);
      const times = recordSearchTimes(system, 'qzzx');
      const began = performance.now();
      const settled = await Promise.allSettled(terms(30, 'qzzx').map((term, i) => system.via(i % 2, search(term))));
      const elapsed = performance.now() - began;
      const served = settled.filter((s) => s.status === 'fulfilled').length;
      const refused = settled
        .filter((s): s is PromiseRejectedResult => s.status === 'rejected')
        .map((s) => s.reason.getError().code);
      // At least what the burst and the longest wait allow; at most what the bucket allows over the run.
      expect(served).toBeGreaterThanOrEqual(BURST + Math.floor(MAX_WAIT_MS * perMs));
      expect(served).toBeLessThanOrEqual(BURST + Math.ceil(elapsed * perMs) + 1);
      expect(refused).toEqual(Array(30 - served).fill(ErrorCode.UpstreamThrottled));
      // Every call served had a token; every refused one called nothing.
      expect(grants).toHaveLength(served);
      expect(times).toHaveLength(served);
      expect(worstExcess(grants, BURST, perMs)).toBeLessThanOrEqual(1e-9);
    });
  });
});
