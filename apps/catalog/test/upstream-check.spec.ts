import { PRICED_ROUTES } from '@appcat/routes';
import { EmulatorControlClient, startStoreEmulator, type StoreEmulator, TODAYS_SHAPES } from '@appcat/store-emulator';
import { createServer } from 'node:net';
import { runUpstreamCheckCli } from '../src/upstream-check/cli.js';
import { checkUpstream, type RouteCheck } from '../src/upstream-check/upstream-check.js';
import { FetchUpstreamHttpClient } from '../src/upstream/upstream-http-client.js';
import { ALL_SOURCES, configFor } from './support.js';

const ALL_ROUTES = PRICED_ROUTES.map((r) => r.path);
/** The routes with an amp-api source (bundle reviews read the bundle through the configured chain, and feeds). */
const AMP_ROUTES = [
  '/api/apps/{appId}/similar',
  '/api/bundles',
  '/api/bundles/{bundleId}',
  '/api/bundles/{bundleId}/similar',
  '/api/apps/{appId}/privacy',
  '/api/apps/{appId}/versions',
];

const drifted = (checks: RouteCheck[]) => checks.filter((c) => c.status !== 'ok').map((c) => c.route);
const sourceOf = (check: RouteCheck | undefined, name: string) => check?.sources.find((s) => s.source === name);

/** A port nothing listens on: taken, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('upstream check against the store emulator', () => {
  let emulator: StoreEmulator;
  let control: EmulatorControlClient;
  const check = () => {
    const config = configFor(emulator.url, ALL_SOURCES);
    return checkUpstream(
      config.apple,
      new FetchUpstreamHttpClient({ timeoutMs: 30_000, userAgent: config.apple.userAgent }),
    );
  };

  beforeAll(async () => {
    emulator = await startStoreEmulator({ seed: 5 });
    control = new EmulatorControlClient(emulator.url);
  });
  afterEach(() => control.setDrift(TODAYS_SHAPES));
  afterAll(() => emulator.close());

  it("finds every priced route ok on today's shapes, one row per route, named by the route table", async () => {
    const checks = await check();
    expect(checks.map((c) => c.route)).toEqual(ALL_ROUTES);
    expect(checks).toHaveLength(14);
    expect(drifted(checks)).toEqual([]);
    // Each relies on its first source, and every source of every route works.
    for (const c of checks) expect(c.detail).toMatch(new RegExp(`^${c.sources[0].source}: \\d+ records?$`));
    expect(checks.flatMap((c) => c.sources).filter((s) => s.status !== 'ok')).toEqual([]);
  });

  it('keeps every route working when the token moved out of the page, and names the amp-api sources as drifted', async () => {
    await control.setDrift({ token: 'nowhere' });
    const checks = await check();
    expect(drifted(checks)).toEqual([]);
    const ampRows = checks.filter((c) => sourceOf(c, 'amp-api')?.status !== undefined && c.route !== '/api/apps');
    expect(ampRows.map((c) => c.route)).toEqual(AMP_ROUTES);
    for (const c of ampRows) {
      expect(sourceOf(c, 'amp-api')).toEqual({
        source: 'amp-api',
        status: 'drift',
        detail: `upstream store answered a store page that carries no web catalogue token (${new URL(emulator.url).host})`,
      });
      expect(c.detail).toMatch(/^catalogue: \d+ records?$/);
    }
  });

  it('finds the token in the old meta tag and in the serialized data', async () => {
    for (const token of ['meta-tag', 'serialized-data'] as const) {
      await control.setDrift({ token });
      const checks = await check();
      expect(checks.flatMap((c) => c.sources).filter((s) => s.status !== 'ok')).toEqual([]);
    }
  });

  it('fails a route only when none of its sources works, and says what each answered', async () => {
    const config = configFor(emulator.url, { APPLE_SOURCES_APPS_REVIEWS: 'feed' });
    await control.setDrift({ reviewsFeed: 'empty' });
    const checks = await checkUpstream(
      config.apple,
      new FetchUpstreamHttpClient({ timeoutMs: 30_000, userAgent: config.apple.userAgent }),
    );
    const reviews = checks.find((c) => c.route === '/api/apps/{appId}/reviews')!;
    expect(reviews.status).toBe('drift');
    expect(reviews.detail).toMatch(
      /^no working source \(feed: no source could answer apps\.reviews \(feed: no reviews while Lookup reports \d+ ratings in us\)\)$/,
    );
    expect(reviews.sources.map((s) => [s.source, s.status])).toEqual([
      ['feed', 'drift'],
      ['feed-id-first', 'drift'],
      ['catalogue', 'ok'],
      ['page', 'ok'],
    ]);
  });

  it('reports exactly bundle search when search results come in an unknown grouping', async () => {
    await control.setDrift({ searchGrouping: 'unknown' });
    const checks = await check();
    expect(drifted(checks)).toEqual(['/api/bundles']);
    expect(checks.find((c) => c.route === '/api/bundles')).toMatchObject({
      status: 'drift',
      detail: expect.stringContaining('search results grouped by an unknown type (top)'),
    });
    // App search relies on iTunes; its catalogue sources read the same grouping and say so.
    expect(sourceOf(checks[0], 'catalogue')?.status).toBe('drift');
  });

  it('reports exactly the feed sources of the review routes when the feed lists the app as its first entry', async () => {
    await control.setDrift({ reviewsFirstEntry: 'app' });
    const checks = await check();
    const driftedSources = checks.flatMap((c) =>
      c.sources.filter((s) => s.status !== 'ok').map((s) => `${c.route} ${s.source}`),
    );
    expect(driftedSources).toEqual([
      '/api/apps/{appId}/reviews feed',
      '/api/apps/{appId}/reviews feed-id-first',
      '/api/bundles/{bundleId}/reviews feed',
      '/api/bundles/{bundleId}/reviews feed-id-first',
    ]);
    expect(sourceOf(checks[2], 'feed')?.detail).toBe(
      'the reviews feed lists the app itself as its first entry (skipped)',
    );
  });

  it('reports drift for a well-known item that answers nothing', async () => {
    const config = configFor(emulator.url);
    const checks = await checkUpstream(
      config.apple,
      new FetchUpstreamHttpClient({ timeoutMs: 30_000, userAgent: config.apple.userAgent }),
      {
        appId: '999999999',
        bundleId: '999999999',
        developerId: '999999999',
        playDeveloperId: '999999999',
        playAppId: 'com.example.nothing',
        playTerm: 'zzzqqqxxx',
        appTerm: 'zzzqqqxxx',
        bundleTerm: 'zzzqqqxxx',
        prefix: 'zzzqqqxxx',
        country: 'us',
      },
    );
    // Every route but the chart, which asks for no item.
    expect(drifted(checks)).toEqual(ALL_ROUTES.filter((r) => r !== '/api/charts/{chart}'));
    expect(checks[0].detail).toBe(
      'no working source (itunes: no records for the well-known item (term "zzzqqqxxx" in us))',
    );
  });

  describe('as a command', () => {
    const run = async (args: string[], env: Record<string, string>) => {
      let stdout = '';
      let stderr = '';
      const code = await runUpstreamCheckCli(args, env, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
      return { code, stdout, stderr };
    };
    const envFor = (url: string) => ({
      ITUNES_BASE_URL: url,
      APPLE_WEB_BASE_URL: url,
      APPLE_AMP_API_BASE_URL: url,
      PLAY_BASE_URL: url,
      UPSTREAM_TIMEOUT_MS: '30000',
    });

    it('--json prints exactly one object, and exits 0 only when all routes of both stores are ok', async () => {
      const ok = await run(['--json'], envFor(emulator.url));
      expect(ok.code).toBe(0);
      const parsed = JSON.parse(ok.stdout) as { routes: RouteCheck[] };
      expect(Object.keys(parsed)).toEqual(['routes']);
      expect(parsed.routes.map((r) => [r.store, r.route, r.status])).toEqual([
        ...ALL_ROUTES.map((r) => ['apple', r, 'ok']),
        ['google-play', '/api/apps', 'ok'],
        ['google-play', '/api/apps/{appId}', 'ok'],
        ['google-play', '/api/apps/{appId}/reviews', 'ok'],
        ['google-play', '/api/apps/{appId}/similar', 'ok'],
        ['google-play', '/api/developers/{developerId}', 'ok'],
      ]);
      expect(Object.keys(parsed.routes[0])).toEqual(['store', 'route', 'status', 'detail', 'sources']);
      expect(parsed.routes[0].sources.map((s) => s.source)).toEqual(['itunes', 'catalogue', 'amp-api']);
      expect(parsed.routes.at(-1)).toMatchObject({
        detail: '135 records',
        sources: [{ source: 'google-play', status: 'ok', detail: '135 records' }],
      });
      await control.setDrift({ searchGrouping: 'unknown' });
      const drift = await run(['--json'], envFor(emulator.url));
      expect(drift.code).toBe(1);
      expect(
        (JSON.parse(drift.stdout) as { routes: RouteCheck[] }).routes
          .filter((r) => r.status === 'drift')
          .map((r) => r.route),
      ).toEqual(['/api/bundles']);
    });

    it('prints one row per route and one per source, and calls an upstream nobody answers unreachable', async () => {
      const url = `http://127.0.0.1:${await closedPort()}`;
      const result = await run(['--country', 'gb'], envFor(url));
      expect(result.code).toBe(1);
      const rows = result.stdout.trimEnd().split('\n');
      const routeRows = rows.filter((row) => !row.startsWith(' '));
      const expected = [
        ...ALL_ROUTES.map((r) => ['apple', r]),
        ['google-play', '/api/apps'],
        ['google-play', '/api/apps/{appId}'],
        ['google-play', '/api/apps/{appId}/reviews'],
        ['google-play', '/api/apps/{appId}/similar'],
        ['google-play', '/api/developers/{developerId}'],
      ];
      expect(routeRows).toHaveLength(expected.length);
      for (const [i, row] of routeRows.entries())
        expect(row).toMatch(
          new RegExp(
            `^${expected[i][0]} +${expected[i][1].replace(/[{}]/g, '\\$&')} +unreachable +(no working source \\(\\S+: .*)?upstream store unreachable: connection refused`,
          ),
        );
      expect(rows).toContainEqual(
        expect.stringMatching(/^ +feed-id-first +unreachable +upstream store unreachable: connection refused/),
      );
      const play = await run(['--store', 'google-play', '--play-developer', 'Mojang'], envFor(emulator.url));
      expect(play.code).toBe(0);
      const playRows = play.stdout.split('\n').filter((row) => row !== '' && !row.startsWith(' '));
      expect(playRows[4]).toMatch(/^google-play +\/api\/developers\/\{developerId\} +ok +3 records$/);
      expect(playRows[2]).toMatch(/^google-play +\/api\/apps\/\{appId\}\/reviews +ok +50 records$/);
      expect(playRows[3]).toMatch(/^google-play +\/api\/apps\/\{appId\}\/similar +ok +50 records$/);
    });

    it('refuses bad flags with a usage message and exit code 2', async () => {
      const result = await run(['--bundle', 'abc'], envFor(emulator.url));
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toContain('--bundle must be a numeric id');
    });
  });
});
