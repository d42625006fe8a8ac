import { REFERENCE_IDS, startStoreEmulator, type StoreEmulator } from '../src/index.js';
import { get, tokenFromPage } from './helpers.js';

interface LegacyEntry {
  'im:name': { label: string };
  'im:price': { attributes: { amount: string } };
  id: { attributes: { 'im:id': string; 'im:bundleId': string } };
  category: { attributes: { 'im:id': string } };
}
type LegacyFeed = { feed: { entry?: LegacyEntry | LegacyEntry[]; id: { label: string } } };
const entriesOf = (feed: LegacyFeed) => {
  const { entry } = feed.feed;
  return entry === undefined ? [] : Array.isArray(entry) ? entry : [entry];
};
const US_FRONT = { 'x-apple-store-front': '143441-1,29' };

describe('store facts: charts, ratings, privacy, versions, search hints', () => {
  let emulator: StoreEmulator;
  beforeAll(async () => {
    emulator = await startStoreEmulator({ seed: 7 });
  });
  afterAll(() => emulator.close());

  it('serves the iTunes chart feeds: 200 at most, free apps only in top-free, a genre narrows it, one entry is an object', async () => {
    const free = entriesOf((await get(emulator.url, '/us/rss/topfreeapplications/limit=200/json')).json<LegacyFeed>());
    expect(free).toHaveLength(200);
    expect(new Set(free.map((e) => e['im:price'].attributes.amount))).toEqual(new Set(['0.00000']));
    expect(new Set(free.map((e) => e.id.attributes['im:id'])).size).toBe(200);
    const paid = entriesOf(
      (await get(emulator.url, '/us/rss/toppaidapplications/genre=6014/limit=50/json')).json<LegacyFeed>(),
    );
    expect(paid.length).toBeGreaterThan(0);
    expect(paid.every((e) => Number(e['im:price'].attributes.amount) > 0)).toBe(true);
    const one = (await get(emulator.url, '/us/rss/topgrossingapplications/limit=1/json')).json<LegacyFeed>();
    expect(Array.isArray(one.feed.entry)).toBe(false);
    expect(entriesOf(one)).toHaveLength(1);
    // A storefront that sells nothing has a feed without entries.
    expect(
      entriesOf((await get(emulator.url, '/zz/rss/topfreeapplications/limit=10/json')).json<LegacyFeed>()),
    ).toEqual([]);
    expect(emulator.stats().byEndpoint['rss-charts']).toBe(4);
  });

  it('serves the marketing tools feed v2: free and paid only, 100 apps at most, no price and no genres', async () => {
    const v2 = (await get(emulator.url, '/api/v2/gb/apps/top-free/100/apps.json')).json<{
      feed: { country: string; results: Record<string, unknown>[] };
    }>();
    expect(v2.feed.country).toBe('gb');
    expect(v2.feed.results).toHaveLength(100);
    expect(v2.feed.results[0]).toMatchObject({ kind: 'apps', genres: [] });
    expect(v2.feed.results[0]).not.toHaveProperty('price');
    expect((await get(emulator.url, '/api/v2/us/apps/top-free/101/apps.json')).status).toBe(500);
    expect((await get(emulator.url, '/api/v2/us/apps/top-grossing/10/apps.json')).status).toBe(404);
  });

  it('answers the customer-reviews page as JSON for platform 29 with a histogram that adds up, HTML otherwise', async () => {
    const path = `/us/customer-reviews/id${REFERENCE_IDS.app}?displayable-kind=11`;
    const summary = (await get(emulator.url, path, US_FRONT)).json<{
      adamId: number;
      ratingCount: number;
      ratingAverage: number;
      ratingCountList: number[];
    }>();
    expect(summary.adamId).toBe(REFERENCE_IDS.app);
    expect(summary.ratingCountList).toHaveLength(5);
    expect(summary.ratingCountList.reduce((a, b) => a + b, 0)).toBe(summary.ratingCount);
    const mean = summary.ratingCountList.reduce((sum, n, i) => sum + n * (i + 1), 0) / summary.ratingCount;
    expect(Math.abs(mean - summary.ratingAverage)).toBeLessThan(0.06);
    const html = await get(emulator.url, path);
    expect(html.headers.get('content-type')).toContain('text/html');
    expect(html.text).toContain(`${summary.ratingCount} Ratings`);
    // The header's storefront wins over the path's: the Japan-only app is found with Japan's id.
    const japan = `/us/customer-reviews/id${REFERENCE_IDS.japanOnlyApp}?displayable-kind=11`;
    expect((await get(emulator.url, japan, US_FRONT)).status).toBe(404);
    expect((await get(emulator.url, japan, { 'x-apple-store-front': '143462-9,29' })).status).toBe(200);
  });

  it('adds the histogram to userRating, and privacyDetails and the whole version history when extended', async () => {
    const page = await get(emulator.url, `/us/app/id${REFERENCE_IDS.app}`);
    const auth = { authorization: `Bearer ${await tokenFromPage(emulator.url, page.text)}` };
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a deep JSON:API document, read field by field
    type Doc = { data: { attributes: Record<string, any> }[] };
    const plain = (
      await get(emulator.url, `/v1/catalog/us/apps/${REFERENCE_IDS.app}?platform=iphone`, auth)
    ).json<Doc>();
    const attributes = plain.data[0].attributes;
    expect(attributes.userRating.ratingCountList.reduce((a: number, b: number) => a + b, 0)).toBe(
      attributes.userRating.ratingCount,
    );
    expect(attributes).not.toHaveProperty('privacyDetails');
    expect(attributes.platformAttributes.ios.versionHistory).toHaveLength(1);
    const extended = (
      await get(
        emulator.url,
        `/v1/catalog/us/apps/${REFERENCE_IDS.app}?platform=web&extend=versionHistory,privacyDetails`,
        auth,
      )
    ).json<Doc>().data[0].attributes;
    const history = extended.platformAttributes.ios.versionHistory;
    expect(history.length).toBeGreaterThan(1);
    expect(history[0]).toMatchObject({
      versionDisplay: attributes.platformAttributes.ios.versionHistory[0].versionDisplay,
    });
    expect(Object.keys(history[0]).sort()).toEqual([
      'releaseDate',
      'releaseNotes',
      'releaseTimestamp',
      'versionDisplay',
    ]);
    expect(extended.privacyDetails.privacyTypes.map((t: { identifier: string }) => t.identifier)).toEqual([
      'DATA_USED_TO_TRACK_YOU',
      'DATA_LINKED_TO_YOU',
      'DATA_NOT_LINKED_TO_YOU',
    ]);
    const sparse = (
      await get(emulator.url, `/v1/catalog/us/apps/${REFERENCE_IDS.app}?platform=web&fields=privacyDetails`, auth)
    ).json<Doc>().data[0].attributes;
    expect(Object.keys(sparse)).toEqual(['privacyDetails']);
  });

  it('suggests terms for a prefix as a plist, and nothing without a storefront header', async () => {
    const hints = await get(
      emulator.url,
      '/WebObjects/MZSearchHints.woa/wa/hints?clientApplication=Software&term=ch',
      US_FRONT,
    );
    expect(hints.headers.get('content-type')).toContain('xml');
    const terms = [...hints.text.matchAll(/<key>term<\/key>\s*<string>([^<]*)<\/string>/g)].map((m) => m[1]);
    expect(terms.length).toBeGreaterThan(0);
    expect(terms.length).toBeLessThanOrEqual(10);
    expect(terms.every((t) => t.split(' ').some((w) => w.startsWith('ch')))).toBe(true);
    const bare = await get(emulator.url, '/WebObjects/MZSearchHints.woa/wa/hints?clientApplication=Software&term=ch');
    expect(bare.text).toContain('<key>hints</key>');
    expect(bare.text).not.toContain('<key>term</key>');
  });
});
