import { type CatalogQuery, ErrorCode } from '@appcat/contracts';
import { CatalogSystem, sleep } from './support.js';

/** Each search is one upstream call of its own (searches are not batched), held this long by the emulator. */
const UPSTREAM_MS = 250;
const SLOTS = 4;

const search = (term: string): CatalogQuery => ({ route: 'apps.search', term, page: 1, country: 'us' });

/** When the emulator received each search, by term; every search is answered `delayMs` late. */
function holdSearches(system: CatalogSystem, delayMs = UPSTREAM_MS): Map<string, number> {
  const started = new Map<string, number>();
  system.emulator.setRequestHook((request) => {
    if (request.path !== '/search') return undefined;
    started.set(request.query.get('term') ?? '', performance.now());
    return { delayMs };
  });
  return started;
}

/** Most upstream calls open at one moment: a call is open from its arrival until UPSTREAM_MS later. */
function mostAtOnce(starts: Iterable<number>): number {
  const sorted = [...starts].sort((a, b) => a - b);
  return Math.max(...sorted.map((t) => sorted.filter((s) => s <= t && t < s + UPSTREAM_MS).length));
}

/** Sends the searches over NATS in this order, a moment apart so the replicas receive them in it. */
async function sendInOrder(system: CatalogSystem, terms: string[]): Promise<{ term: string; doneAt: number }[]> {
  const replies: Promise<{ term: string; doneAt: number }>[] = [];
  for (const term of terms) {
    replies.push(system.fetch(search(term)).then(() => ({ term, doneAt: performance.now() })));
    await sleep(3);
  }
  return Promise.all(replies);
}

describe('fetch budget: each replica works on at most CATALOG_MAX_IN_FLIGHT requests at once', () => {
  describe('one replica', () => {
    let system: CatalogSystem;
    beforeAll(async () => {
      system = await CatalogSystem.start({ replicas: 1, env: { CATALOG_MAX_IN_FLIGHT: String(SLOTS), CATALOG_MAX_QUEUE_WAIT_MS: '10000' } });
    });
    beforeEach(() => system.reset());
    afterAll(() => system?.stop());

    it('runs N fetches at once, never more; the others wait and are served first come, first served', async () => {
      const started = holdSearches(system);
      const terms = Array.from({ length: 3 * SLOTS }, (_, i) => `budget ${i}`);
      const replies = await sendInOrder(system, terms);

      expect(system.emulator.stats().byEndpoint.search).toBe(terms.length);
      expect(mostAtOnce(started.values())).toBe(SLOTS);
      // Admission in arrival order: the first N sent reach the upstream first, then the next N, …
      const upstreamOrder = [...started].sort((a, b) => a[1] - b[1]).map(([term]) => term);
      const waves = (order: string[]) => [0, 1, 2].map((w) => new Set(order.slice(w * SLOTS, (w + 1) * SLOTS)));
      expect(waves(upstreamOrder)).toEqual(waves(terms));
      // … and every answer of one wave comes back before any of the next.
      const replyOrder = [...replies].sort((a, b) => a.doneAt - b.doneAt).map((r) => r.term);
      expect(waves(replyOrder)).toEqual(waves(terms));
    });

    it('a cache hit waits its turn like any fetch, then answers without calling', async () => {
      await system.fetch(search('budget cached'));
      const started = holdSearches(system);
      const misses = sendInOrder(system, Array.from({ length: SLOTS }, (_, i) => `budget busy ${i}`));
      await sleep(UPSTREAM_MS / 5);
      const began = performance.now();
      const hit = await system.fetch(search('budget cached'));
      expect(hit.source).toBe('cache');
      // It could only start once one of the N misses holding every slot had finished.
      expect(performance.now() - began).toBeGreaterThanOrEqual(UPSTREAM_MS / 2);
      await misses;
      expect(started.size).toBe(SLOTS);
    });
  });

  describe('two replicas', () => {
    let system: CatalogSystem;
    beforeAll(async () => {
      system = await CatalogSystem.start({ replicas: 2, env: { CATALOG_MAX_IN_FLIGHT: String(SLOTS), CATALOG_MAX_QUEUE_WAIT_MS: '10000' } });
    });
    afterAll(() => system?.stop());

    it('together run 2N fetches at once, never more', async () => {
      const started = holdSearches(system);
      // Enough that the queue group (random per message) gives each replica at least N of them.
      const terms = Array.from({ length: 8 * SLOTS }, (_, i) => `pair ${i}`);
      await Promise.all(terms.map((term) => system.fetch(search(term))));
      expect(system.emulator.stats().byEndpoint.search).toBe(terms.length);
      expect(mostAtOnce(started.values())).toBe(2 * SLOTS);
    });
  });

  describe('the wait bound', () => {
    const WAIT_MS = 200;
    let system: CatalogSystem;
    beforeAll(async () => {
      system = await CatalogSystem.start({ replicas: 1, env: { CATALOG_MAX_IN_FLIGHT: '1', CATALOG_MAX_QUEUE_WAIT_MS: String(WAIT_MS) } });
    });
    afterAll(() => system?.stop());

    it('refuses a request still waiting for a slot after CATALOG_MAX_QUEUE_WAIT_MS as not handled, and never runs it', async () => {
      const started = holdSearches(system, 4 * WAIT_MS);
      const first = system.fetch(search('bound first'));
      await sleep(20);
      const began = performance.now();
      const [second, third] = await Promise.all([system.fetch(search('bound second')).catch((e: unknown) => e), system.fetch(search('bound third')).catch((e: unknown) => e)]);
      const waited = performance.now() - began;
      for (const refused of [second, third]) {
        expect(refused).toEqual({ code: ErrorCode.ServiceUnavailable, message: `catalog replica busy: all 1 fetch slots taken and none freed up within ${WAIT_MS} ms; not handled, retry` });
      }
      expect(waited).toBeGreaterThanOrEqual(WAIT_MS * 0.9);
      expect(waited).toBeLessThan(3 * WAIT_MS);
      expect((await first).source).toBe('upstream');
      // The refused ones left nothing behind: they never called, and the slot serves the next request.
      await sleep(WAIT_MS);
      expect([...started.keys()]).toEqual(['bound first']);
      expect((await system.fetch(search('bound after'))).source).toBe('upstream');
      expect([...started.keys()]).toEqual(['bound first', 'bound after']);
    });
  });
});
