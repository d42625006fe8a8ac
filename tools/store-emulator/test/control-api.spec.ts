import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import {
  EmulatorControlClient,
  readStoreEmulatorConfig,
  REFERENCE_IDS,
  startStoreEmulator,
  type StoreEmulator,
  TODAYS_SHAPES,
} from '../src/index.js';
import { get, ITUNES_USER_AGENT } from './helpers.js';

const LOOKUP = `/lookup?id=${REFERENCE_IDS.app}`;
const FEED = `/us/rss/customerreviews/page=1/id=${REFERENCE_IDS.app}/sortby=mostRecent/xml`;

async function ampGet(emulator: StoreEmulator, path: string) {
  return get(emulator.url, path, { authorization: `Bearer ${emulator.token()}` });
}

describe('control API: faults, stats and the emulated rate limit over HTTP', () => {
  let emulator: StoreEmulator;
  let control: EmulatorControlClient;

  beforeAll(async () => {
    emulator = await startStoreEmulator();
    control = new EmulatorControlClient(emulator.url);
  });
  afterEach(async () => {
    await control.clearFaults();
    await control.setRateLimit({ perMinute: 0, ampPerMinute: 0, windowMs: 60_000 });
    await control.resetStats();
  });
  afterAll(() => emulator.close());

  it('counts upstream requests per endpoint, never its own control requests', async () => {
    await control.resetStats();
    await get(emulator.url, '/search?term=chess');
    await get(emulator.url, LOOKUP);
    await get(emulator.url, LOOKUP);
    await get(emulator.url, FEED, { 'user-agent': ITUNES_USER_AGENT });
    await get(emulator.url, `/us/app/id${REFERENCE_IDS.app}`);
    await ampGet(emulator, `/v1/catalog/us/apps?ids=${REFERENCE_IDS.app}`);
    await ampGet(emulator, `/v1/catalog/us/app-bundles/${REFERENCE_IDS.bundle}`);
    await ampGet(emulator, '/v1/catalog/us/search?term=meta&types=app-bundles');
    await get(emulator.url, '/nowhere');
    const stats = await control.stats();
    expect(stats).toEqual({
      requests: 9,
      byEndpoint: {
        search: 1,
        lookup: 2,
        reviews: 1,
        page: 1,
        'amp-apps': 1,
        'amp-app-bundles': 1,
        'amp-search': 1,
        'same-origin': 0,
        'play-page': 0,
        'play-batch': 0,
        'rss-charts': 0,
        'marketing-charts': 0,
        ratings: 0,
        hints: 0,
        other: 1,
      },
      faulted: 0,
      rateLimited: 0,
    });
    await control.resetStats();
    expect((await control.stats()).requests).toBe(0);
    expect(emulator.stats().requests).toBe(0);
  });

  it("makes answers drift from today's shapes and back, refusing settings it does not know", async () => {
    expect(await (await fetch(`${emulator.url}/__emulator/drift`)).json()).toEqual(TODAYS_SHAPES);
    expect(await control.setDrift({ reviewsFirstEntry: 'app' })).toEqual({
      ...TODAYS_SHAPES,
      reviewsFirstEntry: 'app',
    });
    const feed = await get(
      emulator.url,
      `/us/rss/customerreviews/page=1/id=${REFERENCE_IDS.app}/sortby=mostRecent/json`,
    );
    expect(feed.json<{ feed: { entry: Record<string, unknown>[] } }>().feed.entry[0]['im:name']).toEqual({
      label: 'Facebook',
    });
    for (const body of ['{"token":"header"}', '{"grouping":"unknown"}', '[]', 'not json']) {
      const response = await fetch(`${emulator.url}/__emulator/drift`, { method: 'PUT', body });
      expect(response.status).toBe(400);
    }
    expect(await control.setDrift(TODAYS_SHAPES)).toEqual(TODAYS_SHAPES);
  });

  it('answers a matching request with the injected status and Retry-After, for `count` requests', async () => {
    const [fault] = await control.addFaults({ match: { path: '/v1/' }, status: 429, retryAfter: 30, count: 2 });
    expect(fault).toMatchObject({ id: expect.any(Number), status: 429, count: 2, applied: 0 });
    for (let i = 0; i < 2; i++) {
      const throttled = await ampGet(emulator, `/v1/catalog/us/apps/${REFERENCE_IDS.app}`);
      expect([throttled.status, throttled.headers.get('retry-after'), throttled.text]).toEqual([429, '30', '']);
    }
    expect((await get(emulator.url, LOOKUP)).status).toBe(200);
    expect((await ampGet(emulator, `/v1/catalog/us/apps/${REFERENCE_IDS.app}`)).status).toBe(200);
    expect((await control.stats()).faulted).toBe(2);
    expect(await (await fetch(`${emulator.url}/__emulator/faults`)).json()).toEqual({ faults: [] });
  });

  it('matches by endpoint and query, and answers 403 with an empty body as Apple throttles', async () => {
    await control.addFaults({ match: { endpoint: 'lookup', query: { country: 'jp' } }, status: 403 });
    const jp = await get(emulator.url, `${LOOKUP}&country=jp`);
    expect([jp.status, jp.text]).toEqual([403, '']);
    expect((await get(emulator.url, `${LOOKUP}&country=us`)).status).toBe(200);
    expect((await get(emulator.url, '/search?term=chess&country=jp')).status).toBe(200);
  });

  it('sends a malformed body of the endpoint type, delays, and drops connections', async () => {
    await control.addFaults(
      { match: { endpoint: 'lookup' }, malformed: true, count: 1 },
      { match: { endpoint: 'reviews' }, malformed: true, count: 1 },
    );
    const lookup = await get(emulator.url, LOOKUP);
    expect(lookup.status).toBe(200);
    expect(() => JSON.parse(lookup.text)).toThrow();
    const feed = await get(emulator.url, FEED, { 'user-agent': ITUNES_USER_AGENT });
    expect(feed.headers.get('content-type')).toContain('xml');
    expect(feed.text).not.toContain('</feed>');

    await control.addFaults({ match: { path: '/lookup' }, delayMs: 150, count: 1 });
    const began = performance.now();
    expect((await get(emulator.url, LOOKUP)).status).toBe(200);
    expect(performance.now() - began).toBeGreaterThanOrEqual(140);

    await control.addFaults({ reset: true, count: 1 });
    await expect(get(emulator.url, LOOKUP)).rejects.toThrow();
    expect((await get(emulator.url, LOOKUP)).status).toBe(200);
  });

  it('removes one fault by id, or all of them', async () => {
    const [a] = await control.addFaults({ match: { endpoint: 'search' }, status: 500 });
    await control.addFaults({ match: { endpoint: 'lookup' }, status: 502 });
    expect((await fetch(`${emulator.url}/__emulator/faults/${a.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await get(emulator.url, '/search?term=chess')).status).toBe(200);
    expect((await get(emulator.url, LOOKUP)).status).toBe(502);
    await control.clearFaults();
    expect((await get(emulator.url, LOOKUP)).status).toBe(200);
  });

  it('refuses faults it would not understand', async () => {
    for (const body of [
      '{"status":"403"}',
      '{"match":{"endpoint":"lookups"}}',
      '{"stauts":403}',
      'not json',
      '{"count":-1}',
    ]) {
      const response = await fetch(`${emulator.url}/__emulator/faults`, { method: 'POST', body });
      expect([body, response.status]).toEqual([body, 400]);
    }
    expect((await fetch(`${emulator.url}/__emulator/nothing`)).status).toBe(404);
  });

  it('keeps the in-process request hook, which runs before injected faults', async () => {
    await control.addFaults({ status: 500 });
    emulator.setRequestHook((r) => (r.path === '/lookup' ? { response: { status: 418, body: '' } } : undefined));
    try {
      expect((await get(emulator.url, LOOKUP)).status).toBe(418);
      expect((await get(emulator.url, '/search?term=x')).status).toBe(500);
    } finally {
      emulator.setRequestHook();
    }
  });

  it("emulates Apple's limit: 403 empty past N search/lookup calls a window, 429 with Retry-After on the web catalogue", async () => {
    await control.setRateLimit({ perMinute: 3, ampPerMinute: 2, windowMs: 400 });
    const lookups = [];
    for (let i = 0; i < 5; i++) lookups.push(await get(emulator.url, LOOKUP));
    expect(lookups.map((r) => r.status)).toEqual([200, 200, 200, 403, 403]);
    expect(lookups[3].text).toBe('');
    // The feed is not part of the search/lookup budget.
    expect((await get(emulator.url, FEED, { 'user-agent': ITUNES_USER_AGENT })).status).toBe(200);
    const amp = [];
    for (let i = 0; i < 3; i++) amp.push(await ampGet(emulator, `/v1/catalog/us/apps/${REFERENCE_IDS.app}`));
    expect(amp.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(Number(amp[2].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await control.stats()).rateLimited).toBe(3);
    await new Promise((r) => setTimeout(r, 450));
    expect((await get(emulator.url, LOOKUP)).status).toBe(200);
  });

  it('lists the catalogue: popular apps first, with the storefronts that sell them', async () => {
    const listing = await control.catalogue();
    expect(listing.storefronts).toEqual([
      'us',
      'gb',
      'de',
      'fr',
      'jp',
      'br',
      'ca',
      'ru',
      'it',
      'es',
      'nl',
      'se',
      'kr',
      'au',
      'mx',
      'in',
      'pl',
      'tr',
      'ch',
      'at',
    ]);
    expect(listing.apps.length).toBeGreaterThan(10_000);
    expect(listing.apps.find((a) => a.trackId === REFERENCE_IDS.japanOnlyApp)?.storefronts).toEqual(['jp']);
    expect(listing.developers).toContain(REFERENCE_IDS.developer);
    expect(listing.bundles.map((b) => b.id)).toContain(REFERENCE_IDS.bundle);
    expect(listing.terms.length).toBeGreaterThan(50);
    const top = listing.apps[0];
    expect(
      (await get(emulator.url, `/lookup?id=${top.trackId}&country=${top.storefronts[0]}`)).json<{
        resultCount: number;
      }>().resultCount,
    ).toBe(1);
  });

  it('reads the rate limit from the environment, off by default', () => {
    expect(readStoreEmulatorConfig({}).rateLimit).toEqual({ perMinute: 0, ampPerMinute: 0, windowMs: 60_000 });
    expect(
      readStoreEmulatorConfig({ STORE_EMULATOR_RATE_LIMIT_PER_MIN: '20', STORE_EMULATOR_AMP_RATE_LIMIT_PER_MIN: '60' })
        .rateLimit,
    ).toMatchObject({
      perMinute: 20,
      ampPerMinute: 60,
    });
  });
});

describe('control API across processes', () => {
  let child: ChildProcess;

  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('controls an emulator started with npm start (dist/main.js) from this process', async () => {
    const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
    child = spawn(process.execPath, [main], {
      env: { ...process.env, STORE_EMULATOR_PORT: '0', STORE_EMULATOR_RATE_LIMIT_PER_MIN: '2' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    const url = /listening on (http:\/\/\S+)/.exec(line.toString())?.[1];
    expect(url).toBeDefined();
    const control = new EmulatorControlClient(url!);
    expect((await control.setRateLimit({})).perMinute).toBe(2);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await get(url!, LOOKUP)).status);
    expect(statuses).toEqual([200, 200, 403]);
    await control.setRateLimit({ perMinute: 0 });
    await control.addFaults({ match: { endpoint: 'search' }, status: 503, count: 1 });
    expect((await get(url!, '/search?term=chess')).status).toBe(503);
    expect((await get(url!, '/search?term=chess')).status).toBe(200);
    expect(await control.stats()).toMatchObject({
      requests: 5,
      byEndpoint: { lookup: 3, search: 2 },
      faulted: 1,
      rateLimited: 1,
    });
  });
});
