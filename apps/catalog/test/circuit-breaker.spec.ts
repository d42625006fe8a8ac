import { type CatalogQuery, ErrorCode } from '@appcat/contracts';
import { REFERENCE_IDS } from '@appcat/store-emulator';
import { CatalogSystem, HeldRequests, until } from './support.js';

// Periods of a minute, so no step of a test can outlast one however loaded the machine (900 ms could
// be). A test ends a period where it would have waited for it: it moves the breaker's end, in Redis,
// to the past, which is what the passing of the period does.
const THROTTLE_OPEN_MS = 60_000;
const OPEN_MS = 60_000;

const search = (term: string, country = 'us'): CatalogQuery => ({ route: 'apps.search', term, page: 1, country });
const similar: CatalogQuery = { route: 'apps.similar', appId: String(REFERENCE_IDS.app), country: 'us' };
const app = (country: string): CatalogQuery => ({ route: 'apps.get', appId: String(REFERENCE_IDS.app), country });

/** The seconds a message says to wait ("…; retry after N s"). */
const retryAfterOf = (error: unknown) =>
  Number(/retry after (\d+) s$/.exec((error as { message: string }).message)?.[1]);

/**
 * The period a refusal names, checked against the time since the breaker opened: at most the period,
 * and at least what is left of it once `elapsedMs` have passed (a loaded machine takes longer).
 */
function expectRetryAfter(error: unknown, periodMs: number, openedAt: number): void {
  const elapsedMs = performance.now() - openedAt;
  const seconds = retryAfterOf(error);
  expect(seconds).toBeLessThanOrEqual(periodMs / 1000);
  expect(seconds).toBeGreaterThanOrEqual(Math.floor((periodMs - elapsedMs) / 1000));
}

const breakers = {
  start: (env: Record<string, string>) =>
    CatalogSystem.start({
      replicas: 2,
      env: {
        BREAKER_THROTTLE_OPEN_MS: String(THROTTLE_OPEN_MS),
        BREAKER_OPEN_MS: String(OPEN_MS),
        BREAKER_FAILURE_THRESHOLD: '2',
        BREAKER_MAX_OPEN_MS: '600000',
        CACHE_FAILURE_TTL_MS: '0',
        ...env,
      },
    }),
  /** Ends the open period of a host's breaker now, as its passing would. */
  endPeriod: async (system: CatalogSystem, upstream: 'itunes' | 'apple-amp') => {
    const key = `${system.config.redis.keyPrefix}breaker:${upstream}`;
    expect(await system.redis.hget(key, 'state')).toBe('open');
    await system.redis.hset(key, 'until', '0');
  },
};

describe('circuit breaker per upstream host, shared by the replicas', () => {
  let system: CatalogSystem;
  let host: string;
  const calls = (endpoint: 'search' | 'lookup' | 'amp-apps') => system.emulator.stats().byEndpoint[endpoint];

  beforeAll(async () => {
    system = await breakers.start({});
    host = new URL(system.emulator.url).host;
  });
  beforeEach(() => system.reset());
  afterAll(() => system?.stop());

  it("opens on Apple's 403 with an empty body: the host is left alone until the period ends, then one probe closes it", async () => {
    system.emulator.addFault({ match: { endpoint: 'search' }, status: 403 });
    const openedAt = performance.now();
    await expect(system.via(0, search('chess'))).rejects.toMatchObject({
      code: ErrorCode.UpstreamThrottled,
      message: `upstream store is throttling us (HTTP 403 with an empty body, ${host}); retry after ${THROTTLE_OPEN_MS / 1000} s`,
    });
    // Another search, on the other replica: refused without a call, as the throttling it is.
    const refused = await system.via(1, search('weather')).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: ErrorCode.UpstreamThrottled,
      message: expect.stringMatching(/^upstream store is throttling us .*; retry after \d+ s$/),
    });
    expectRetryAfter(refused, THROTTLE_OPEN_MS, openedAt);
    await expect(system.via(0, app('us'))).rejects.toMatchObject({ code: ErrorCode.UpstreamThrottled });
    expect([calls('search'), calls('lookup')]).toEqual([1, 0]);
    // The web catalogue is another host with its own breaker.
    expect((await system.via(1, similar)).source).toBe('upstream');

    system.emulator.clearFaults();
    await breakers.endPeriod(system, 'itunes');
    expect((await system.via(1, search('weather'))).source).toBe('upstream');
    const after = await Promise.all([system.via(0, search('music')), system.via(1, search('photo'))]);
    expect(after.map((r) => r.source)).toEqual(['upstream', 'upstream']);
    expect(calls('search')).toBe(4);
  });

  it('a batched lookup, which passes the breaker before it gathers ids, can be the probe', async () => {
    system.emulator.addFault({ match: { endpoint: 'lookup' }, status: 403, count: 1 });
    await expect(system.fetch(app('us'))).rejects.toMatchObject({ code: ErrorCode.UpstreamThrottled });
    await expect(system.fetch(app('gb'))).rejects.toMatchObject({ code: ErrorCode.UpstreamThrottled });
    expect(calls('lookup')).toBe(1);
    await breakers.endPeriod(system, 'itunes');
    expect((await system.fetch(app('gb'))).source).toBe('upstream');
    expect((await system.fetch(app('de'))).source).toBe('upstream');
    expect(calls('lookup')).toBe(3);
  });

  it('honours Retry-After of a 429 over its own default period', async () => {
    // Twice the default period.
    const RETRY_AFTER_S = (2 * THROTTLE_OPEN_MS) / 1000;
    system.emulator.addFault({ match: { endpoint: 'amp-apps' }, status: 429, retryAfter: RETRY_AFTER_S, count: 1 });
    const openedAt = performance.now();
    await expect(system.fetch(similar)).rejects.toMatchObject({
      code: ErrorCode.UpstreamThrottled,
      message: `upstream store is throttling us (HTTP 429, ${host}); retry after ${RETRY_AFTER_S} s`,
    });
    // Still open for longer than the default period would have been, and nothing sent.
    const refused = await system.fetch(similar).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: ErrorCode.UpstreamThrottled });
    expectRetryAfter(refused, RETRY_AFTER_S * 1000, openedAt);
    expect(retryAfterOf(refused)).toBeGreaterThan(THROTTLE_OPEN_MS / 1000);
    expect(calls('amp-apps')).toBe(1);
    await breakers.endPeriod(system, 'apple-amp');
    expect(await system.fetch(similar)).toMatchObject({ source: 'upstream' });
    expect(calls('amp-apps')).toBe(2);
  });

  it('opens after consecutive 5xx, reopens for twice as long when the probe fails, closes when it succeeds', async () => {
    system.emulator.addFault({ match: { endpoint: 'search' }, status: 503 });
    await expect(system.fetch(search('a1'))).rejects.toMatchObject({
      code: ErrorCode.UpstreamHttpError,
      message: `upstream store answered HTTP 503 (${host})`,
    });
    const openedAt = performance.now();
    await expect(system.fetch(search('a2'))).rejects.toMatchObject({
      code: ErrorCode.UpstreamHttpError,
      message: `upstream store answered HTTP 503 (${host})`,
    });
    const refused = await system.fetch(search('a3')).catch((e: unknown) => e);
    expect(refused).toEqual({
      code: ErrorCode.UpstreamHttpError,
      message: expect.stringMatching(
        new RegExp(`^upstream store is failing \\(HTTP 503, ${host}\\); retry after \\d+ s$`),
      ),
    });
    expectRetryAfter(refused, OPEN_MS, openedAt);
    expect(calls('search')).toBe(2);

    await breakers.endPeriod(system, 'itunes');
    const probedAt = performance.now();
    await expect(system.fetch(search('a4'))).rejects.toMatchObject({
      message: `upstream store answered HTTP 503 (${host})`,
    });
    expect(calls('search')).toBe(3);
    // The failed probe reopened it for 2 × OPEN_MS.
    const reopened = await system.fetch(search('a5')).catch((e: unknown) => e);
    expect(reopened).toMatchObject({ message: expect.stringMatching(/^upstream store is failing/) });
    expectRetryAfter(reopened, 2 * OPEN_MS, probedAt);
    expect(retryAfterOf(reopened)).toBeGreaterThan(OPEN_MS / 1000);
    expect(calls('search')).toBe(3);

    system.emulator.clearFaults();
    await breakers.endPeriod(system, 'itunes');
    expect((await system.fetch(search('a6'))).source).toBe('upstream');
    expect((await system.fetch(search('a7'))).source).toBe('upstream');
  });

  it('lets exactly one probe through when the period ends; the others are refused until it answers', async () => {
    system.emulator.addFault({ match: { endpoint: 'search' }, status: 403, count: 1 });
    await expect(system.fetch(search('b0'))).rejects.toMatchObject({ code: ErrorCode.UpstreamThrottled });
    await breakers.endPeriod(system, 'itunes');
    // The probe is held at the upstream until the four others have been answered.
    const held = new HeldRequests(system.emulator, 'search');
    let refusedSoFar = 0;
    const sent = Promise.allSettled(
      ['b1', 'b2', 'b3', 'b4', 'b5'].map((term, i) =>
        system.via(i % 2, search(term)).catch((error: unknown) => {
          refusedSoFar++;
          throw error;
        }),
      ),
    );
    await until(() => held.held === 1 && refusedSoFar === 4);
    held.release();
    const settled = await sent;
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(1);
    expect(
      settled.filter((s) => s.status === 'rejected').map((s) => (s as PromiseRejectedResult).reason.getError().code),
    ).toEqual(Array(4).fill(ErrorCode.UpstreamThrottled));
    expect(calls('search')).toBe(2);
  });

  it('a 404 or a 400 is an answer, not a failure', async () => {
    system.emulator.addFault({
      match: { endpoint: 'search' },
      status: 400,
      body: '{"errorMessage":"Invalid value(s) for key(s): [country]"}',
    });
    for (const term of ['c1', 'c2', 'c3'])
      await expect(system.fetch(search(term))).rejects.toMatchObject({ code: ErrorCode.UpstreamBadResponse });
    expect(calls('search')).toBe(3);
  });
});

describe('circuit breaker: timeouts', () => {
  // A short timeout against an answer that takes a minute; healthy calls elsewhere get 30 s.
  const UPSTREAM_TIMEOUT_MS = 1000;
  let system: CatalogSystem;

  beforeAll(async () => {
    system = await breakers.start({ UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS) });
  });
  afterAll(() => system?.stop());

  it('counts timeouts as failures, and says so while open', async () => {
    const host = new URL(system.emulator.url).host;
    system.emulator.addFault({ match: { endpoint: 'lookup' }, delayMs: 60_000 });
    const askedAt = performance.now();
    // Side by side, so the test waits for one timeout, not two.
    await Promise.all(
      ['us', 'gb'].map((country) =>
        expect(system.fetch(app(country))).rejects.toMatchObject({ code: ErrorCode.UpstreamTimeout }),
      ),
    );
    const refused = await system.fetch(app('de')).catch((e: unknown) => e);
    expect(refused).toEqual({
      code: ErrorCode.UpstreamTimeout,
      message: expect.stringMatching(
        new RegExp(`^upstream store is failing \\(timed out, ${host}\\); retry after \\d+ s$`),
      ),
    });
    expectRetryAfter(refused, OPEN_MS, askedAt);
    expect(system.emulator.stats().byEndpoint.lookup).toBe(2);
  });
});
