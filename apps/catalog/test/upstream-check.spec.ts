import { PRICED_ROUTES } from '@appcat/routes';
import { EmulatorControlClient, startStoreEmulator, type StoreEmulator, TODAYS_SHAPES } from '@appcat/store-emulator';
import { createServer } from 'node:net';
import { runUpstreamCheckCli } from '../src/upstream-check/cli.js';
import { checkUpstream, type RouteCheck } from '../src/upstream-check/upstream-check.js';
import { FetchUpstreamHttpClient } from '../src/upstream/upstream-http-client.js';
import { configFor } from './support.js';

const ALL_ROUTES = PRICED_ROUTES.map((r) => r.path);
const AMP_ROUTES = [
  '/api/apps/{appId}/similar',
  '/api/bundles',
  '/api/bundles/{bundleId}',
  '/api/bundles/{bundleId}/reviews',
  '/api/bundles/{bundleId}/similar',
];

const drifted = (checks: RouteCheck[]) => checks.filter((c) => c.status !== 'ok').map((c) => c.route);

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
    const config = configFor(emulator.url);
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
    expect(checks).toHaveLength(9);
    expect(drifted(checks)).toEqual([]);
    expect(checks.every((c) => /^\d+ records?$/.test(c.detail))).toBe(true);
  });

  it('reports exactly the similar and bundle routes when the token moved out of the module script', async () => {
    await control.setDrift({ token: 'nowhere' });
    const checks = await check();
    expect(drifted(checks)).toEqual(AMP_ROUTES);
    for (const c of checks.filter((c) => c.status !== 'ok')) {
      expect(c).toMatchObject({
        status: 'drift',
        detail: `upstream store answered a module script without the web catalogue token (${new URL(emulator.url).host})`,
      });
    }
  });

  it('does not read the old meta tag either: it is gone from the site', async () => {
    await control.setDrift({ token: 'meta-tag' });
    expect(drifted(await check())).toEqual(AMP_ROUTES);
  });

  it('reports exactly bundle search when search results come in an unknown grouping', async () => {
    await control.setDrift({ searchGrouping: 'unknown' });
    const checks = await check();
    expect(drifted(checks)).toEqual(['/api/bundles']);
    expect(checks.find((c) => c.route === '/api/bundles')).toMatchObject({
      status: 'drift',
      detail: expect.stringContaining('search results grouped by an unknown type (top)'),
    });
  });

  it('reports exactly the review routes when the feed lists the app as its first entry', async () => {
    await control.setDrift({ reviewsFirstEntry: 'app' });
    const checks = await check();
    expect(drifted(checks)).toEqual(['/api/apps/{appId}/reviews', '/api/bundles/{bundleId}/reviews']);
    expect(checks.find((c) => c.route === '/api/apps/{appId}/reviews')?.detail).toBe(
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
        appTerm: 'zzzqqqxxx',
        bundleTerm: 'zzzqqqxxx',
        country: 'us',
      },
    );
    expect(drifted(checks)).toEqual(ALL_ROUTES);
    expect(checks[0].detail).toBe('no records for the well-known item (term "zzzqqqxxx" in us)');
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
        ['google-play', '/api/developers/{developerId}', 'ok'],
      ]);
      expect(parsed.routes[9].detail).toBe('135 records');
      await control.setDrift({ searchGrouping: 'unknown' });
      const drift = await run(['--json'], envFor(emulator.url));
      expect(drift.code).toBe(1);
      expect(
        (JSON.parse(drift.stdout) as { routes: RouteCheck[] }).routes
          .filter((r) => r.status === 'drift')
          .map((r) => r.route),
      ).toEqual(['/api/bundles']);
    });

    it('prints one row per route, and calls an upstream nobody answers unreachable', async () => {
      const url = `http://127.0.0.1:${await closedPort()}`;
      const result = await run(['--country', 'gb'], envFor(url));
      expect(result.code).toBe(1);
      const rows = result.stdout.trim().split('\n');
      expect(rows).toHaveLength(10);
      const expected = [...ALL_ROUTES.map((r) => ['apple', r]), ['google-play', '/api/developers/{developerId}']];
      for (const [i, row] of rows.entries())
        expect(row).toMatch(
          new RegExp(
            `^${expected[i][0]} +${expected[i][1].replace(/[{}]/g, '\\$&')} +unreachable +upstream store unreachable: connection refused`,
          ),
        );
      const play = await run(['--store', 'google-play', '--play-developer', 'Mojang'], envFor(emulator.url));
      expect(play.code).toBe(0);
      expect(play.stdout.trim()).toMatch(/^google-play +\/api\/developers\/\{developerId\} +ok +3 records$/);
    });

    it('refuses bad flags with a usage message and exit code 2', async () => {
      const result = await run(['--bundle', 'abc'], envFor(emulator.url));
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toContain('--bundle must be a numeric id');
    });
  });
});
