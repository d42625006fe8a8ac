import { CHART_PAGE_SIZE, ErrorCode } from '@appcat/contracts';
import { REFERENCE_IDS, startStoreEmulator, type StoreEmulator } from '@appcat/store-emulator';
import { AppleStoreAdapter } from '../src/apple/apple-store-adapter.js';
import type { ChartEntry } from '../src/apple/facts/chart-feeds.js';
import type { Ratings } from '../src/apple/facts/ratings.js';
import { FetchUpstreamHttpClient } from '../src/upstream/upstream-http-client.js';
import { ALL_SOURCES, configFor, wireErrorOf } from './support.js';

const APP = String(REFERENCE_IDS.app);
const EMPTY_CHART = JSON.stringify({ feed: { author: { name: { label: 'iTunes Store' } }, title: { label: 'x' } } });
const EMPTY_HINTS =
  '<?xml version="1.0"?><plist version="1.0"><dict><key>title</key><string>Suggestions</string><key>hints</key><array/></dict></plist>';

/** The five store-fact routes through the Apple adapter, against the emulator, each source and rule in turn. */
describe('Apple adapter: charts, ratings, privacy, versions, suggestions', () => {
  let emulator: StoreEmulator;
  let adapter: AppleStoreAdapter;
  const stats = () => emulator.stats().byEndpoint;

  beforeAll(async () => {
    emulator = await startStoreEmulator({ seed: 11 });
    const config = configFor(emulator.url, ALL_SOURCES);
    adapter = new AppleStoreAdapter(
      config.apple,
      new FetchUpstreamHttpClient({ timeoutMs: 30_000, userAgent: config.apple.userAgent }),
    );
  });
  afterAll(() => emulator.close());
  beforeEach(() => {
    emulator.clearFaults();
    emulator.resetStats();
  });

  describe('charts.get', () => {
    const chart = (page = 1, extra: { chart?: 'top-free' | 'top-paid' | 'top-grossing'; genre?: string } = {}) =>
      adapter.topChart({ route: 'charts.get', chart: 'top-free', country: 'us', page, ...extra });

    it('reads 200 apps from the iTunes feed once and serves them 20 a page, ranked', async () => {
      const first = (await chart(1)).results as ChartEntry[];
      const last = (await chart(10)).results as ChartEntry[];
      expect(first).toHaveLength(CHART_PAGE_SIZE);
      expect(first.map((e) => e.rank)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(last.map((e) => e.rank)).toEqual(Array.from({ length: 20 }, (_, i) => 181 + i));
      expect(first.every((e) => e.price === 0 && e.currency === 'USD')).toBe(true);
      expect(stats()['rss-charts']).toBe(2); // uncached adapter: one feed request a call
      expect(stats()['marketing-charts']).toBe(0);
    });

    it('narrows to a genre, and has grossing charts', async () => {
      const games = (await chart(1, { chart: 'top-grossing', genre: '6014' })).results as ChartEntry[];
      expect(games.length).toBeGreaterThan(0);
      expect(games.every((e) => e.genreId === '6014')).toBe(true);
    });

    it('falls back to the marketing tools feed when the iTunes feed answers an empty chart, never serving it', async () => {
      emulator.addFault({ match: { endpoint: 'rss-charts' }, status: 200, body: EMPTY_CHART });
      const page = (await chart(1)).results as ChartEntry[];
      expect(page).toHaveLength(CHART_PAGE_SIZE);
      expect(page[0]).not.toHaveProperty('price'); // the marketing feed has no price
      expect(stats()).toMatchObject({ 'rss-charts': 1, 'marketing-charts': 1 });
      // Past the 100 apps that feed lists, the page is a failure, not the chart's end.
      expect(await wireErrorOf(chart(6))).toMatchObject({ code: ErrorCode.UpstreamBadResponse });
    });

    it('fails, naming every source, when none gives a plausible chart; the marketing feed has no grossing chart', async () => {
      emulator.addFault({ match: { endpoint: 'rss-charts' }, status: 200, body: EMPTY_CHART });
      emulator.addFault({ match: { endpoint: 'marketing-charts' }, status: 503 });
      const both = await wireErrorOf(chart(1));
      expect(both.code).toBe(ErrorCode.UpstreamBadResponse);
      expect(both.message).toMatch(
        /^no source could answer charts\.get \(itunes-rss: a top chart without apps; marketing-rss: .*HTTP 503/,
      );
      const grossing = await wireErrorOf(chart(1, { chart: 'top-grossing' }));
      expect(grossing.message).toMatch(/itunes-rss: a top chart without apps; marketing-rss: .*not served/);
      expect(stats()['marketing-charts']).toBe(1);
    });
  });

  describe('apps.ratings', () => {
    const ratings = (appId = APP, country = 'us') => adapter.appRatings({ route: 'apps.ratings', appId, country });

    it('reads the histogram from the customer-reviews page, one to five stars adding up to the count', async () => {
      const [record] = (await ratings()).results as Ratings[];
      expect(record).toMatchObject({ appId: APP, country: 'us' });
      expect(Object.values(record.histogram).reduce((a, b) => a + b, 0)).toBe(record.count);
      expect(record.count).toBeGreaterThan(0);
      expect(stats()).toMatchObject({ ratings: 1, 'amp-apps': 0 });
    });

    it('falls back to the web catalogue when the page answers HTML or counts that do not add up', async () => {
      const [fromPage] = (await ratings()).results as Ratings[];
      emulator.addFault({
        match: { endpoint: 'ratings' },
        status: 200,
        body: '<html><div class="rating-count">1</div></html>',
      });
      const [fromCatalogue] = (await ratings()).results as Ratings[];
      expect(fromCatalogue.histogram).toEqual(fromPage.histogram);
      emulator.clearFaults();
      emulator.addFault({
        match: { endpoint: 'ratings' },
        status: 200,
        body: JSON.stringify({
          adamId: REFERENCE_IDS.app,
          ratingAverage: 4.5,
          ratingCount: 10,
          ratingCountList: [1, 1, 1, 1, 1],
        }),
      });
      expect(((await ratings()).results as Ratings[])[0].histogram).toEqual(fromPage.histogram);
    });

    it('answers nothing for an app not sold in the storefront, and resolves bundle identifiers', async () => {
      expect(await ratings(String(REFERENCE_IDS.japanOnlyApp))).toEqual({ resultCount: 0, results: [] });
      expect((await ratings(REFERENCE_IDS.appBundleId)).resultCount).toBe(1);
    });
  });

  describe('apps.privacy and apps.versions', () => {
    it('gives the privacy label with the app id, and every version newest first, from one web catalogue request each', async () => {
      const privacy = await adapter.appPrivacy({ route: 'apps.privacy', appId: APP, country: 'us' });
      expect(privacy.results).toEqual([
        expect.objectContaining({
          appId: APP,
          privacyTypes: expect.arrayContaining([expect.objectContaining({ identifier: 'DATA_LINKED_TO_YOU' })]),
        }),
      ]);
      const versions = (await adapter.appVersions({ route: 'apps.versions', appId: APP, country: 'us' })).results as {
        releaseTimestamp: string;
      }[];
      expect(versions.length).toBeGreaterThan(1);
      const times = versions.map((v) => Date.parse(v.releaseTimestamp));
      expect(times.every((t, i) => i === 0 || times[i - 1] >= t)).toBe(true);
      expect(stats()['amp-apps']).toBe(2);
    });

    it('reads the same-origin catalogue when amp-api answers without what was asked, and fails when both do', async () => {
      const bare = JSON.stringify({ data: [{ id: APP, type: 'apps', attributes: { name: 'Facebook' } }] });
      emulator.addFault({ match: { endpoint: 'amp-apps' }, status: 200, body: bare });
      const versions = await adapter.appVersions({ route: 'apps.versions', appId: APP, country: 'us' });
      expect(versions.resultCount).toBeGreaterThan(1);
      expect(stats()).toMatchObject({ 'amp-apps': 1, 'same-origin': 1 });
      emulator.addFault({ match: { endpoint: 'same-origin' }, status: 200, body: bare });
      const failure = await wireErrorOf(adapter.appVersions({ route: 'apps.versions', appId: APP, country: 'us' }));
      expect(failure).toMatchObject({
        code: ErrorCode.UpstreamBadResponse,
        message:
          'no source could answer apps.privacy (amp-api: an app without the privacy details asked for; ' +
          'catalogue: an app without the privacy details asked for)',
      });
      emulator.clearFaults();
      const unknown = { appId: String(REFERENCE_IDS.japanOnlyApp), country: 'us' };
      expect(await adapter.appPrivacy({ route: 'apps.privacy', ...unknown })).toEqual({ resultCount: 0, results: [] });
    });
  });

  describe('suggestions.search', () => {
    const suggest = (term: string, country = 'us') =>
      adapter.searchSuggestions({ route: 'suggestions.search', term, country });

    it('answers the store’s hints for a prefix, with their priority', async () => {
      const { results } = await suggest('Ch');
      expect(results.length).toBeGreaterThan(0);
      expect(results[0]).toEqual({ term: expect.stringMatching(/ch/), priority: 10_000 });
    });

    it('refuses an empty list for one letter (the storefront header lost), and takes one for a rare prefix', async () => {
      emulator.addFault({ match: { endpoint: 'hints' }, status: 200, body: EMPTY_HINTS });
      expect((await wireErrorOf(suggest('p'))).message).toContain('no hints for the letter "p"');
      expect(await suggest('qqqzzz')).toEqual({ resultCount: 0, results: [] });
    });
  });

  it('rebuilds every store-fact resource from its refresh job', () => {
    for (const job of [
      { upstream: 'itunes', kind: 'chart', args: ['us', 'top-paid', '6014'] },
      { upstream: 'itunes', kind: 'chart', args: ['us', 'top-free', null] },
      { upstream: 'itunes', kind: 'ratings', args: ['us', APP] },
      { upstream: 'apple-amp', kind: 'app-facts', args: ['gb', APP, 'en-gb'] },
      { upstream: 'apple-hints', kind: 'hints', args: ['us', 'ch'] },
    ])
      expect(adapter.refreshRequest(job)?.refresh).toEqual(job);
    expect(
      adapter.refreshRequest({ upstream: 'itunes', kind: 'chart', args: ['us', 'top-new', null] }),
    ).toBeUndefined();
  });
});
