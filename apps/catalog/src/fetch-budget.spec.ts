import { ErrorCode } from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import { CatalogMetrics, createRegistry } from '@appcat/ops';
import { FetchBudget } from './fetch-budget.js';

/** A piece of work that runs until the test settles it. */
function held<T = string>() {
  let settle!: { resolve: (value: T) => void; reject: (error: Error) => void };
  const started = { value: false };
  const work = () => {
    started.value = true;
    return new Promise<T>((resolve, reject) => (settle = { resolve, reject }));
  };
  return { work, started, finish: (value: T) => settle.resolve(value), fail: (error: Error) => settle.reject(error) };
}

const ticks = () => new Promise((resolve) => setImmediate(resolve));

/** The fetch budget's figures as a scrape sees them: gauges by name, wait counts by outcome. */
async function scraped(metrics: CatalogMetrics): Promise<Record<string, number>> {
  const figures: Record<string, number> = {};
  for (const metric of await metrics.registry.getMetricsAsJSON()) {
    for (const value of metric.values as {
      value: number;
      labels: Record<string, string | number>;
      metricName?: string;
    }[]) {
      if (metric.name.startsWith('appcat_catalog_fetches') || metric.name === 'appcat_catalog_fetch_slots')
        figures[metric.name] = value.value;
      if (value.metricName === 'appcat_catalog_fetch_wait_seconds_count')
        figures[`waits ${value.labels.outcome}`] = value.value;
    }
  }
  return figures;
}

describe('FetchBudget', () => {
  it('hands a freed slot to the oldest waiter, also when the fetch holding it failed', async () => {
    const budget = new FetchBudget(
      { maxInFlight: 1, maxQueueWaitMs: 60_000 },
      new CatalogMetrics(createRegistry('catalog')),
    );
    const [a, b, c] = [held(), held(), held()];
    const results = [budget.run(a.work), budget.run(b.work).catch((e: Error) => e.message), budget.run(c.work)];
    await ticks();
    expect([a.started.value, b.started.value, c.started.value]).toEqual([true, false, false]);
    a.finish('a');
    await ticks();
    expect([b.started.value, c.started.value]).toEqual([true, false]);
    b.fail(new Error('b failed'));
    await ticks();
    expect(c.started.value).toBe(true);
    c.finish('c');
    expect(await Promise.all(results)).toEqual(['a', 'b failed', 'c']);
  });

  it('refuses at once with no waiting allowed, and a refused request never takes a slot later', async () => {
    const budget = new FetchBudget(
      { maxInFlight: 1, maxQueueWaitMs: 0 },
      new CatalogMetrics(createRegistry('catalog')),
    );
    const a = held();
    const first = budget.run(a.work);
    const refused = held();
    const error = await budget.run(refused.work).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WireException);
    expect((error as WireException).getError()).toEqual({
      code: ErrorCode.ServiceUnavailable,
      message: 'catalog replica busy: all 1 fetch slots taken and no waiting allowed; not handled, retry',
    });
    a.finish('a');
    await first;
    await ticks();
    expect(refused.started.value).toBe(false);
    expect(await budget.run(async () => 'next')).toBe('next');
  });

  it('shows its slots, the fetches running and waiting, and the waits on the metrics port', async () => {
    const metrics = new CatalogMetrics(createRegistry('catalog'));
    const budget = new FetchBudget({ maxInFlight: 2, maxQueueWaitMs: 50 }, metrics);
    const [a, b, c, d] = [held(), held(), held(), held()];
    const running = [budget.run(a.work), budget.run(b.work), budget.run(c.work)];
    const timedOut = budget.run(d.work).catch((e: WireException) => e.getError());
    await ticks();
    expect(await scraped(metrics)).toEqual({
      appcat_catalog_fetch_slots: 2,
      appcat_catalog_fetches_in_flight: 2,
      appcat_catalog_fetches_waiting: 2,
    });
    a.finish('a');
    await ticks();
    expect(await timedOut).toMatchObject({ code: ErrorCode.ServiceUnavailable });
    b.finish('b');
    c.finish('c');
    await Promise.all(running);
    expect(await scraped(metrics)).toEqual({
      appcat_catalog_fetch_slots: 2,
      appcat_catalog_fetches_in_flight: 0,
      appcat_catalog_fetches_waiting: 0,
      'waits admitted': 1,
      'waits refused': 1,
    });
  });
});
