import { type CatalogQuery, ErrorCode } from '@appcat/contracts';
import { REFERENCE_IDS } from '@appcat/store-emulator';
import { CatalogSystem, sleep } from './support.js';

// The periods and the upstream timeout are wide enough that a loaded machine cannot cross them between
// two steps of a test (they were 300 ms, which a busy 2-core machine did cross), and below 1 s so the
// messages still say "retry after 1 s". Waiting for a period to end is a sleep at least as long.
const THROTTLE_OPEN_MS = 900;
const OPEN_MS = 900;
const UPSTREAM_TIMEOUT_MS = 3_000;

const search = (term: string, country = 'us'): CatalogQuery => ({ route: 'apps.search', term, page: 1, country });
const similar: CatalogQuery = { route: 'apps.similar', appId: String(REFERENCE_IDS.app), country: 'us' };

describe('circuit breaker per upstream host, shared by the replicas', () => {
  let system: CatalogSystem;
  let host: string;
  const calls = (endpoint: 'search' | 'lookup' | 'amp-apps') => system.emulator.stats().byEndpoint[endpoint];

  beforeAll(async () => {
    system = await CatalogSystem.start({
      replicas: 2,
      env: {
        BREAKER_THROTTLE_OPEN_MS: String(THROTTLE_OPEN_MS),
        BREAKER_OPEN_MS: String(OPEN_MS),
        BREAKER_FAILURE_THRESHOLD: '2',
        BREAKER_MAX_OPEN_MS: '5000',
        CACHE_FAILURE_TTL_MS: '0',
        UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
      },
    });
    host = new URL(system.emulator.url).host;
  });
  beforeEach(() => system.reset());
  afterAll(() => system?.stop());

  it("opens on Apple's 403 with an empty body: the host is left alone until the period ends, then one probe closes it", async () => {
    system.emulator.addFault({ match: { endpoint: 'search' }, status: 403 });
    await expect(system.via(0, search('chess'))).rejects.toMatchObject({
      code: ErrorCode.UpstreamThrottled,
      message: `upstream store is throttling us (HTTP 403 with an empty body, ${host}); retry after 1 s`,
    });
    // Another search, on the other replica: refused without a call, as the throttling it is.
    await expect(system.via(1, search('weather'))).rejects.toMatchObject({ code: ErrorCode.UpstreamThrottled, message: expect.stringMatching(/^upstream store is throttling us .*; retry after 1 s$/) });
    await expect(system.via(0, { route: 'apps.get', appId: String(REFERENCE_IDS.app), country: 'us' })).rejects.toMatchObject({ code: ErrorCode.UpstreamThrottled });
    expect([calls('search'), calls('lookup')]).toEqual([1, 0]);
    // The web catalogue is another host with its own breaker.
    expect((await system.via(1, similar)).source).toBe('upstream');

    system.emulator.clearFaults();
    await sleep(THROTTLE_OPEN_MS + 50);
    expect((await system.via(1, search('weather'))).source).toBe('upstream');
    const after = await Promise.all([system.via(0, search('music')), system.via(1, search('photo'))]);
    expect(after.map((r) => r.source)).toEqual(['upstream', 'upstream']);
    expect(calls('search')).toBe(4);
  });

  it('a batched lookup, which passes the breaker before it gathers ids, can be the probe', async () => {
    const app = (country: string): CatalogQuery => ({ route: 'apps.get', appId: String(REFERENCE_IDS.app), country });
    system.emulator.addFault({ match: { endpoint: 'lookup' }, status: 403, count: 1 });
    await expect(system.fetch(app('us'))).rejects.toMatchObject({ code: ErrorCode.UpstreamThrottled });
    await expect(system.fetch(app('gb'))).rejects.toMatchObject({ code: ErrorCode.UpstreamThrottled });
    expect(calls('lookup')).toBe(1);
    await sleep(THROTTLE_OPEN_MS + 50);
    expect((await system.fetch(app('gb'))).source).toBe('upstream');
    expect((await system.fetch(app('de'))).source).toBe('upstream');
    expect(calls('lookup')).toBe(3);
  });

  it('honours Retry-After of a 429 over its own default period', async () => {
    system.emulator.addFault({ match: { endpoint: 'amp-apps' }, status: 429, retryAfter: 3, count: 1 });
    await expect(system.fetch(similar)).rejects.toMatchObject({
      code: ErrorCode.UpstreamThrottled,
      message: `upstream store is throttling us (HTTP 429, ${host}); retry after 3 s`,
    });
    await sleep(THROTTLE_OPEN_MS + 200);
    // Past BREAKER_THROTTLE_OPEN_MS but within Retry-After: still open, nothing sent.
    await expect(system.fetch(similar)).rejects.toMatchObject({ code: ErrorCode.UpstreamThrottled });
    expect(calls('amp-apps')).toBe(1);
    await sleep(3000 - THROTTLE_OPEN_MS - 200 + 100);
    expect(await system.fetch(similar)).toMatchObject({ source: 'upstream' });
    expect(calls('amp-apps')).toBe(2);
  });

  it('opens after consecutive 5xx, reopens for twice as long when the probe fails, closes when it succeeds', async () => {
    system.emulator.addFault({ match: { endpoint: 'search' }, status: 503 });
    for (const term of ['a1', 'a2']) await expect(system.fetch(search(term))).rejects.toMatchObject({ code: ErrorCode.UpstreamHttpError, message: `upstream store answered HTTP 503 (${host})` });
    await expect(system.fetch(search('a3'))).rejects.toEqual({
      code: ErrorCode.UpstreamHttpError,
      message: `upstream store is failing (HTTP 503, ${host}); retry after 1 s`,
    });
    expect(calls('search')).toBe(2);

    await sleep(OPEN_MS + 50);
    await expect(system.fetch(search('a4'))).rejects.toMatchObject({ message: `upstream store answered HTTP 503 (${host})` });
    expect(calls('search')).toBe(3);
    // The failed probe reopened it for 2 × OPEN_MS: after OPEN_MS more it is still open.
    await sleep(OPEN_MS + 50);
    await expect(system.fetch(search('a5'))).rejects.toMatchObject({ message: expect.stringMatching(/^upstream store is failing/) });
    expect(calls('search')).toBe(3);

    system.emulator.clearFaults();
    await sleep(OPEN_MS);
    expect((await system.fetch(search('a6'))).source).toBe('upstream');
    expect((await system.fetch(search('a7'))).source).toBe('upstream');
  });

  it('lets exactly one probe through when the period ends; the others are refused until it answers', async () => {
    system.emulator.addFault({ match: { endpoint: 'search' }, status: 403, count: 1 });
    await expect(system.fetch(search('b0'))).rejects.toMatchObject({ code: ErrorCode.UpstreamThrottled });
    await sleep(THROTTLE_OPEN_MS + 50);
    system.emulator.addFault({ match: { endpoint: 'search' }, delayMs: 150 });
    const settled = await Promise.allSettled(['b1', 'b2', 'b3', 'b4', 'b5'].map((term, i) => system.via(i % 2, search(term))));
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(1);
    expect(settled.filter((s) => s.status === 'rejected').map((s) => (s as PromiseRejectedResult).reason.getError().code)).toEqual(Array(4).fill(ErrorCode.UpstreamThrottled));
    expect(calls('search')).toBe(2);
  });

  it('counts timeouts as failures, and says so while open', async () => {
    system.emulator.addFault({ match: { endpoint: 'lookup' }, delayMs: UPSTREAM_TIMEOUT_MS + 1000 });
    // Side by side, so the test waits for one timeout, not two.
    await Promise.all(
      ['us', 'gb'].map((country) =>
        expect(system.fetch({ route: 'apps.get', appId: String(REFERENCE_IDS.app), country })).rejects.toMatchObject({ code: ErrorCode.UpstreamTimeout }),
      ),
    );
    await expect(system.fetch({ route: 'apps.get', appId: String(REFERENCE_IDS.app), country: 'de' })).rejects.toEqual({
      code: ErrorCode.UpstreamTimeout,
      message: `upstream store is failing (timed out, ${host}); retry after 1 s`,
    });
    expect(calls('lookup')).toBe(2);
  });

  it('a 404 or a 400 is an answer, not a failure', async () => {
    system.emulator.addFault({ match: { endpoint: 'search' }, status: 400, body: '{"errorMessage":"Invalid value(s) for key(s): [country]"}' });
    for (const term of ['c1', 'c2', 'c3']) await expect(system.fetch(search(term))).rejects.toMatchObject({ code: ErrorCode.UpstreamBadResponse });
    expect(calls('search')).toBe(3);
  });
});
