import { type CatalogQuery, ErrorCode } from '@appcat/contracts';
import { CatalogSystem, HeldRequests, sleep, until } from './support.js';

const SLOTS = 4;

const search = (term: string): CatalogQuery => ({ route: 'apps.search', term, page: 1, country: 'us' });

/** Sends the searches over NATS in this order, a moment apart so the replicas receive them in it. */
async function sendInOrder(system: CatalogSystem, terms: string[]): Promise<{ term: string; doneAt: number }[]> {
  const replies: Promise<{ term: string; doneAt: number }>[] = [];
  for (const term of terms) {
    replies.push(system.fetch(search(term)).then(() => ({ term, doneAt: performance.now() })));
    await sleep(3);
  }
  return Promise.all(replies);
}

/** What each replica runs now, and how many fetches they hold in all, running or waiting. */
async function holding(system: CatalogSystem): Promise<{ inFlight: number[]; total: number }> {
  const budgets = await Promise.all(system.replicas.map((_, i) => system.budget(i)));
  return {
    inFlight: budgets.map((b) => b.inFlight),
    total: budgets.reduce((sum, b) => sum + b.inFlight + b.waiting, 0),
  };
}

/**
 * Serves `count` searches held at the emulator in rounds: each round waits until every fetch not yet
 * answered is in a replica and every running one is held at the upstream (nothing more can reach it
 * unless a budget lets it), checks what each replica runs, then answers the held ones. How many were
 * held at once is then exactly what the budgets let through, whatever the machine's speed.
 */
async function serveInRounds(
  system: CatalogSystem,
  held: HeldRequests,
  count: number,
  onRound?: (inFlight: number[]) => void,
): Promise<void> {
  let answered = 0;
  while (answered < count) {
    let state = await holding(system);
    await until(
      async () => {
        state = await holding(system);
        const running = state.inFlight.reduce((sum, n) => sum + n, 0);
        return state.total === count - answered && held.held === running && running > 0;
      },
      undefined,
      () => ({ ...state, held: held.held, answered, arrived: held.arrived }),
    );
    for (const inFlight of state.inFlight) expect(inFlight).toBeLessThanOrEqual(SLOTS);
    onRound?.(state.inFlight);
    answered += held.held;
    held.release();
  }
}

describe('fetch budget: each replica works on at most CATALOG_MAX_IN_FLIGHT requests at once', () => {
  describe('one replica', () => {
    let system: CatalogSystem;
    beforeAll(async () => {
      system = await CatalogSystem.start({
        replicas: 1,
        env: { CATALOG_MAX_IN_FLIGHT: String(SLOTS), CATALOG_MAX_QUEUE_WAIT_MS: '30000' },
      });
    });
    beforeEach(() => system.reset());
    afterAll(() => system?.stop());

    it('runs N fetches at once, never more; the others wait and are served first come, first served', async () => {
      const held = new HeldRequests(system.emulator);
      const terms = Array.from({ length: 3 * SLOTS }, (_, i) => `budget ${i}`);
      const replies = sendInOrder(system, terms);
      const rounds: number[][] = [];
      await serveInRounds(system, held, terms.length, (inFlight) => rounds.push(inFlight));
      const done = await replies;

      expect(system.emulator.stats().byEndpoint.search).toBe(terms.length);
      expect(rounds).toEqual([[SLOTS], [SLOTS], [SLOTS]]);
      expect(held.mostHeld).toBe(SLOTS);
      // Admission in arrival order: the first N sent reach the upstream first, then the next N, …
      const waves = (order: string[]) => [0, 1, 2].map((w) => new Set(order.slice(w * SLOTS, (w + 1) * SLOTS)));
      expect(waves(held.arrived)).toEqual(waves(terms));
      // … and every answer of one wave comes back before any of the next.
      const replyOrder = [...done].sort((a, b) => a.doneAt - b.doneAt).map((r) => r.term);
      expect(waves(replyOrder)).toEqual(waves(terms));
    });

    it('a cache hit waits its turn like any fetch, then answers without calling', async () => {
      await system.fetch(search('budget cached'));
      const held = new HeldRequests(system.emulator);
      const misses = sendInOrder(
        system,
        Array.from({ length: SLOTS }, (_, i) => `budget busy ${i}`),
      );
      await until(() => held.held === SLOTS);
      let answered = false;
      const hit = system.fetch(search('budget cached')).then((reply) => ((answered = true), reply));
      // It waits for a slot while the N misses hold every one of them …
      await until(async () => (await system.budget(0)).waiting === 1);
      expect(answered).toBe(false);
      // … and answers once one is freed, from the cache.
      held.release();
      expect((await hit).source).toBe('cache');
      await misses;
      expect(held.arrived).toHaveLength(SLOTS);
    });
  });

  describe('two replicas', () => {
    let system: CatalogSystem;
    beforeAll(async () => {
      system = await CatalogSystem.start({
        replicas: 2,
        env: { CATALOG_MAX_IN_FLIGHT: String(SLOTS), CATALOG_MAX_QUEUE_WAIT_MS: '30000' },
      });
    });
    afterAll(() => system?.stop());

    it('together run 2N fetches at once, never more', async () => {
      const held = new HeldRequests(system.emulator);
      // Enough that the queue group (random per message) gives each replica at least N of them.
      const terms = Array.from({ length: 8 * SLOTS }, (_, i) => `pair ${i}`);
      const replies = Promise.all(terms.map((term) => system.fetch(search(term))));
      const rounds: number[][] = [];
      await serveInRounds(system, held, terms.length, (inFlight) => rounds.push(inFlight));
      await replies;
      expect(system.emulator.stats().byEndpoint.search).toBe(terms.length);
      expect(rounds[0]).toEqual([SLOTS, SLOTS]);
      expect(held.mostHeld).toBe(2 * SLOTS);
    });
  });

  describe('the wait bound', () => {
    const WAIT_MS = 200;
    let system: CatalogSystem;
    beforeAll(async () => {
      system = await CatalogSystem.start({
        replicas: 1,
        env: { CATALOG_MAX_IN_FLIGHT: '1', CATALOG_MAX_QUEUE_WAIT_MS: String(WAIT_MS) },
      });
    });
    afterAll(() => system?.stop());

    it('refuses a request still waiting for a slot after CATALOG_MAX_QUEUE_WAIT_MS as not handled, and never runs it', async () => {
      const held = new HeldRequests(system.emulator);
      const first = system.fetch(search('bound first'));
      await until(() => held.held === 1);
      const began = performance.now();
      const [second, third] = await Promise.all([
        system.fetch(search('bound second')).catch((e: unknown) => e),
        system.fetch(search('bound third')).catch((e: unknown) => e),
      ]);
      const waited = performance.now() - began;
      // Refused while the first still held the slot (it is answered only now): the bound refused
      // them, not a slot that freed up.
      expect(held.held).toBe(1);
      for (const refused of [second, third]) {
        expect(refused).toEqual({
          code: ErrorCode.ServiceUnavailable,
          message: `catalog replica busy: all 1 fetch slots taken and none freed up within ${WAIT_MS} ms; not handled, retry`,
        });
      }
      expect(waited).toBeGreaterThanOrEqual(WAIT_MS * 0.9);
      held.release();
      expect((await first).source).toBe('upstream');
      // The refused ones left nothing behind: nothing runs or waits, they never called, and the slot
      // serves the next request.
      await until(async () => (await system.budget(0)).inFlight === 0);
      expect(await system.budget(0)).toEqual({ inFlight: 0, waiting: 0 });
      const after = system.fetch(search('bound after'));
      await until(() => held.held === 1);
      held.release();
      expect((await after).source).toBe('upstream');
      expect(held.arrived).toEqual(['bound first', 'bound after']);
    });
  });
});
