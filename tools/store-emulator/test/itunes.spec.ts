import { REFERENCE_IDS, startStoreEmulator, type StoreEmulator } from '../src/index.js';
import { feedEntries, get, ITUNES_USER_AGENT } from './helpers.js';

interface Results {
  resultCount: number;
  results: Record<string, unknown>[];
}

const SOFTWARE_FIELDS: [string, string][] = [
  ['wrapperType', 'string'],
  ['kind', 'string'],
  ['trackId', 'number'],
  ['trackName', 'string'],
  ['bundleId', 'string'],
  ['artistId', 'number'],
  ['artistName', 'string'],
  ['sellerName', 'string'],
  ['price', 'number'],
  ['formattedPrice', 'string'],
  ['currency', 'string'],
  ['averageUserRating', 'number'],
  ['userRatingCount', 'number'],
  ['description', 'string'],
  ['genres', 'object'],
  ['primaryGenreName', 'string'],
  ['version', 'string'],
  ['releaseDate', 'string'],
  ['trackViewUrl', 'string'],
  ['artworkUrl100', 'string'],
  ['screenshotUrls', 'object'],
  ['contentAdvisoryRating', 'string'],
  ['fileSizeBytes', 'string'],
  ['minimumOsVersion', 'string'],
  ['languageCodesISO2A', 'object'],
];

function expectSoftware(record: Record<string, unknown>) {
  for (const [field, type] of SOFTWARE_FIELDS) expect([field, typeof record[field]]).toEqual([field, type]);
  expect(record.wrapperType).toBe('software');
  expect(record.kind).toBe('software');
}

describe('iTunes Search and Lookup', () => {
  let emulator: StoreEmulator;
  beforeAll(async () => (emulator = await startStoreEmulator({ seed: 7 })));
  afterAll(() => emulator.close());

  const search = async (query: string) => (await get(emulator.url, `/search?${query}`)).json<Results>();

  it('searches software with the real field names, up to the limit', async () => {
    const found = await search('term=chess&country=us&media=software&entity=software&limit=200');
    expect(found.resultCount).toBeGreaterThan(10);
    expect(found.resultCount).toBe(found.results.length);
    found.results.forEach(expectSoftware);
    expect(found.results.map((r) => r.trackId)).toContain(REFERENCE_IDS.chessApp);
    for (const r of found.results)
      expect(`${r.trackName} ${r.artistName} ${r.description}`.toLowerCase()).toContain('chess');
    expect((await search('term=chess&country=us&limit=3')).resultCount).toBe(3);
  });

  it('caps the limit at 200 and answers with the JSON content type Apple uses', async () => {
    const response = await get(emulator.url, '/search?term=a&country=us&limit=500');
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.json<Results>().resultCount).toBe(200);
  });

  it('prices and currencies follow the storefront', async () => {
    const [us, jp, de] = await Promise.all(
      ['us', 'jp', 'de'].map((cc) => search(`term=chess&country=${cc}&limit=200`)),
    );
    expect(new Set(us.results.map((r) => r.currency))).toEqual(new Set(['USD']));
    expect(new Set(jp.results.map((r) => r.currency))).toEqual(new Set(['JPY']));
    expect(new Set(de.results.map((r) => r.currency))).toEqual(new Set(['EUR']));
    const paid = us.results.find((r) => (r.price as number) > 0);
    expect(paid?.formattedPrice).toMatch(/^\$\d+\.\d\d$/);
    expect(us.results.find((r) => r.price === 0)?.formattedPrice).toBe('Free');
    expect(de.results.find((r) => r.price === 0)?.formattedPrice).toBe('Gratis');
  });

  it.each([
    ['Japanese', 'チェス', 'jp'],
    ['Cyrillic', 'шахматы', 'ru'],
    ['Arabic', 'الشطرنج', 'us'],
    ['emoji', '♟️', 'us'],
  ])('finds %s names when the term is percent-encoded', async (_script, term, country) => {
    const found = await search(`term=${encodeURIComponent(term)}&country=${country}`);
    expect(found.resultCount).toBeGreaterThan(0);
    expect((found.results[0].trackName as string).toLowerCase()).toContain(term);
  });

  it('looks up by id and by bundle identifier, case-insensitively, several at once', async () => {
    const byId = (
      await get(emulator.url, `/lookup?id=${REFERENCE_IDS.app}&country=us&entity=software`)
    ).json<Results>();
    expect(byId.resultCount).toBe(1);
    expectSoftware(byId.results[0]);
    expect(byId.results[0]).toMatchObject({
      trackId: 284882215,
      trackName: 'Facebook',
      bundleId: 'com.facebook.Facebook',
      artistId: 284882218,
      artistName: 'Meta Platforms, Inc.',
    });
    const byBundle = (
      await get(emulator.url, '/lookup?bundleId=COM.FACEBOOK.FACEBOOK,com.facebook.Messenger&country=gb')
    ).json<Results>();
    expect(byBundle.results.map((r) => r.trackName)).toEqual(['Facebook', 'Messenger']);
    expect(byBundle.results[0].currency).toBe('GBP');
    const several = (
      await get(emulator.url, `/lookup?id=${REFERENCE_IDS.app},${REFERENCE_IDS.chessApp},999&country=us`)
    ).json<Results>();
    expect(several.results.map((r) => r.trackId)).toEqual([REFERENCE_IDS.app, REFERENCE_IDS.chessApp]);
  });

  it('returns the developer then its apps for an artist id with entity=software', async () => {
    const found = (
      await get(emulator.url, `/lookup?id=${REFERENCE_IDS.developer}&entity=software&limit=200`)
    ).json<Results>();
    expect(found.results[0]).toMatchObject({
      wrapperType: 'artist',
      artistType: 'Software Artist',
      artistId: 284882218,
      artistName: 'Meta Platforms, Inc.',
    });
    const apps = found.results.slice(1);
    expect(apps.length).toBeGreaterThanOrEqual(3);
    apps.forEach(expectSoftware);
    expect(new Set(apps.map((a) => a.artistId))).toEqual(new Set([284882218]));
    expect(apps.map((a) => a.trackId)).toContain(REFERENCE_IDS.app);
    const artistOnly = (await get(emulator.url, `/lookup?id=${REFERENCE_IDS.developer}`)).json<Results>();
    expect(artistOnly.results.map((r) => r.wrapperType)).toEqual(['artist']);
  });

  it('knows ids sold in one storefront only', async () => {
    const lookup = async (id: number, cc: string) =>
      (await get(emulator.url, `/lookup?id=${id}&country=${cc}`)).json<Results>().resultCount;
    expect(await lookup(REFERENCE_IDS.japanOnlyApp, 'jp')).toBe(1);
    expect(await lookup(REFERENCE_IDS.japanOnlyApp, 'us')).toBe(0);
    expect(await lookup(REFERENCE_IDS.brazilOnlyApp, 'br')).toBe(1);
    expect(await lookup(REFERENCE_IDS.brazilOnlyApp, 'gb')).toBe(0);
    expect(await lookup(REFERENCE_IDS.app, 'zw')).toBe(0);
    expect(await lookup(123456789012, 'us')).toBe(0);
  });

  it("answers an invalid lang, country or id with Apple's errorMessage", async () => {
    for (const query of ['id=284882215&lang=xx_yy', 'term=chess&country=usa', 'id=abc']) {
      const response = await get(emulator.url, `/${query.startsWith('term') ? 'search' : 'lookup'}?${query}`);
      expect(response.status).toBe(400);
      expect(response.json().errorMessage).toMatch(/^Invalid value\(s\) for key\(s\): \[/);
    }
    expect((await get(emulator.url, '/lookup?id=284882215&lang=ja_jp')).status).toBe(200);
  });
});

describe('customer reviews feed', () => {
  let emulator: StoreEmulator;
  beforeAll(async () => (emulator = await startStoreEmulator({ seed: 7 })));
  afterAll(() => emulator.close());

  const feed = (cc: string, id: number, page: number, sort: string, userAgent = ITUNES_USER_AGENT) =>
    get(emulator.url, `/${cc}/rss/customerreviews/page=${page}/id=${id}/sortby=${sort}/xml`, {
      'user-agent': userAgent,
    });

  it('serves ten pages of fifty for Facebook, newest first, without repeats', async () => {
    const pages = await Promise.all(
      Array.from({ length: 10 }, (_, i) => feed('us', REFERENCE_IDS.app, i + 1, 'mostRecent')),
    );
    const entries = pages.flatMap((p) => feedEntries(p.text).entries);
    expect(pages.map((p) => feedEntries(p.text).entries.length)).toEqual(Array(10).fill(50));
    expect(new Set(entries.map((e) => e.id)).size).toBe(500);
    const dates = entries.map((e) => Date.parse(e.updated));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
    const first = entries[0];
    expect(Number(first['im:rating'])).toBeGreaterThanOrEqual(1);
    expect(first.content.map((c) => c['@_type'])).toEqual(['text', 'html']);
    expect(pages[0].headers.get('content-type')).toContain('application/atom+xml');
  });

  it('sorts by votes for mostHelpful', async () => {
    const { entries } = feedEntries((await feed('us', REFERENCE_IDS.app, 1, 'mostHelpful')).text);
    const votes = entries.map((e) => Number(e['im:voteSum']));
    expect(votes).toEqual([...votes].sort((a, b) => b - a));
    expect(votes[0]).toBeGreaterThan(0);
  });

  it('writes a single review as one entry element', async () => {
    const response = await feed('us', REFERENCE_IDS.singleReviewApp, 1, 'mostRecent');
    expect(response.text.match(/<entry>/g)).toHaveLength(1);
    const { raw } = feedEntries(response.text);
    expect(Array.isArray(raw)).toBe(false);
  });

  it("has no entries past the last page, for unreviewed apps, or outside the app's storefront", async () => {
    for (const response of [
      await feed('us', REFERENCE_IDS.singleReviewApp, 2, 'mostRecent'),
      await feed('us', REFERENCE_IDS.unreviewedApp, 1, 'mostRecent'),
      await feed('us', REFERENCE_IDS.japanOnlyApp, 1, 'mostRecent'),
    ]) {
      expect(response.status).toBe(200);
      expect(feedEntries(response.text).entries).toHaveLength(0);
    }
    expect(
      feedEntries((await feed('jp', REFERENCE_IDS.japanOnlyApp, 1, 'mostRecent')).text).entries.length,
    ).toBeGreaterThan(0);
  });

  it('gives a client that is not iTunes-like an empty feed', async () => {
    const response = await feed('us', REFERENCE_IDS.app, 1, 'mostRecent', 'node');
    expect(response.status).toBe(200);
    expect(response.text).toContain('<feed');
    expect(feedEntries(response.text).entries).toHaveLength(0);
  });

  it('rejects pages outside 1..10', async () => {
    expect((await feed('us', REFERENCE_IDS.app, 11, 'mostRecent')).status).toBe(400);
  });
});

describe('customer reviews feed, /json form', () => {
  type Label = { label: string };
  type JsonEntry = Record<string, unknown> & {
    id: Label & { attributes?: Record<string, string> };
    'im:rating'?: Label;
    updated?: Label;
  };
  type JsonFeed = { feed: { entry?: JsonEntry | JsonEntry[]; author: { name: Label } } };
  let emulator: StoreEmulator;
  beforeAll(async () => (emulator = await startStoreEmulator({ seed: 7 })));
  afterAll(() => emulator.close());

  const feed = async (cc: string, id: number, page: number, sort = 'mostRecent') => {
    const response = await get(emulator.url, `/${cc}/rss/customerreviews/page=${page}/id=${id}/sortby=${sort}/json`, {
      'user-agent': 'node',
    });
    return { response, body: response.json<JsonFeed>() };
  };
  const entriesOf = (body: JsonFeed) =>
    body.feed.entry === undefined ? [] : Array.isArray(body.feed.entry) ? body.feed.entry : [body.feed.entry];

  it('serves the same reviews as the XML form, every value as text under label, to any client', async () => {
    const { response, body } = await feed('us', REFERENCE_IDS.app, 1);
    expect(response.headers.get('content-type')).toContain('application/json');
    const entries = entriesOf(body);
    expect(entries).toHaveLength(50);
    const xml = feedEntries(
      (
        await get(emulator.url, `/us/rss/customerreviews/page=1/id=${REFERENCE_IDS.app}/sortby=mostRecent/xml`, {
          'user-agent': ITUNES_USER_AGENT,
        })
      ).text,
    );
    expect(entries.map((e) => e.id.label)).toEqual(xml.entries.map((e) => e.id));
    expect(entries[0]).toMatchObject({
      author: {
        name: { label: expect.any(String) },
        uri: { label: expect.stringMatching(/^https:\/\/itunes\.apple\.com\/us\/reviews\/id\d+$/) },
      },
      'im:rating': { label: expect.stringMatching(/^[1-5]$/) },
      'im:version': { label: expect.any(String) },
      content: { label: expect.any(String), attributes: { type: 'text' } },
      link: {
        attributes: {
          rel: 'related',
          href: `https://itunes.apple.com/us/review?id=${REFERENCE_IDS.app}&type=Purple%20Software`,
        },
      },
      'im:voteSum': { label: expect.stringMatching(/^\d+$/) },
      'im:voteCount': { label: expect.stringMatching(/^\d+$/) },
    });
  });

  it('writes a single review as an object, and no entry at all when there is none', async () => {
    expect(Array.isArray((await feed('us', REFERENCE_IDS.singleReviewApp, 1)).body.feed.entry)).toBe(false);
    expect((await feed('us', REFERENCE_IDS.singleReviewApp, 1)).body.feed.entry).toMatchObject({
      id: { label: expect.stringMatching(/^\d+$/) },
    });
    expect((await feed('us', REFERENCE_IDS.unreviewedApp, 1)).body.feed).not.toHaveProperty('entry');
    expect(
      (await get(emulator.url, `/us/rss/customerreviews/page=11/id=${REFERENCE_IDS.app}/sortby=mostRecent/json`))
        .status,
    ).toBe(400);
  });

  it('lists the app itself first when told to drift, as older captures do', async () => {
    emulator.setDrift({ reviewsFirstEntry: 'app' });
    const entries = entriesOf((await feed('us', REFERENCE_IDS.app, 2)).body);
    const single = (await feed('us', REFERENCE_IDS.singleReviewApp, 1)).body;
    emulator.setDrift({ reviewsFirstEntry: 'review' });
    expect(entries).toHaveLength(51);
    expect(entries[0]).toMatchObject({
      'im:name': { label: 'Facebook' },
      id: { attributes: { 'im:id': String(REFERENCE_IDS.app), 'im:bundleId': 'com.facebook.Facebook' } },
    });
    expect(entries[0]).not.toHaveProperty('im:rating');
    expect(entriesOf(single)).toHaveLength(2);
  });
});
