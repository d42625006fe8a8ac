import { REFERENCE_IDS, startStoreEmulator, type StoreEmulator, TODAYS_SHAPES } from '../src/index.js';
import { get, moduleScriptOf } from './helpers.js';

const BROWSER = {
  'user-agent':
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15',
  origin: 'https://apps.apple.com',
  referer: 'https://apps.apple.com/',
};
const feedPath = (page = 1) => `/us/rss/customerreviews/page=${page}/id=${REFERENCE_IDS.app}/sortby=mostrecent/json`;
const entriesOf = async (base: string, path: string) =>
  ((await get(base, path)).json<{ feed: { entry?: unknown[] } }>().feed.entry ?? []).length;

function serverData(html: string): Record<string, unknown> {
  const text = /<script type="application\/json" id="serialized-server-data">([\s\S]*?)<\/script>/.exec(html)?.[1];
  if (!text) throw new Error('no serialized server data');
  return JSON.parse(text) as Record<string, unknown>;
}

describe("2026's App Store, each behaviour switchable", () => {
  let emulator: StoreEmulator;
  beforeAll(async () => {
    emulator = await startStoreEmulator({ seed: 7 });
  });
  afterEach(() => emulator.setDrift({ ...TODAYS_SHAPES }));
  afterAll(() => emulator.close());

  describe('the same-origin catalogue', () => {
    const app = `/api/apps/v1/catalog/us/apps/${REFERENCE_IDS.app}`;

    it('refuses a request without platform=web (400) or from a client that is not a browser (429), no token needed', async () => {
      expect((await get(emulator.url, app, BROWSER)).status).toBe(400);
      const curl = await get(emulator.url, `${app}?platform=web`, { 'user-agent': 'curl/8.7.1' });
      expect(curl.status).toBe(429);
      expect(curl.headers.get('retry-after')).toMatch(/^\d+$/);
      const ok = await get(emulator.url, `${app}?platform=web&include=customers-also-bought-apps`, BROWSER);
      expect(ok.status).toBe(200);
      const [resource] = ok.json<{ data: { id: string; relationships: Record<string, { data: unknown[] }> }[] }>().data;
      expect(resource.id).toBe(String(REFERENCE_IDS.app));
      expect(resource.relationships['customers-also-bought-apps'].data.length).toBeGreaterThan(0);
      emulator.setDrift({ sameOrigin: 'open' });
      expect((await get(emulator.url, app, { 'user-agent': 'curl/8.7.1' })).status).toBe(200);
    });

    it('pages an app reviews 20 at most a request, and serves a developer with its apps', async () => {
      const page = await get(emulator.url, `${app}/reviews?platform=web&offset=20&limit=20&sort=recent`, BROWSER);
      const body = page.json<{ data: { type: string; attributes: Record<string, unknown> }[]; next?: string }>();
      expect(body.data).toHaveLength(20);
      expect(body.data[0].type).toBe('user-reviews');
      expect(Object.keys(body.data[0].attributes).sort()).toEqual(
        ['date', 'isEdited', 'rating', 'review', 'title', 'userName'].sort(),
      );
      expect(body.next).toContain('offset=40');
      expect((await get(emulator.url, `${app}/reviews?platform=web&limit=21`, BROWSER)).status).toBe(400);
      const developer = await get(
        emulator.url,
        `/api/apps/v1/catalog/us/developers/${REFERENCE_IDS.developer}?platform=web&include=apps`,
        BROWSER,
      );
      const [artist] = developer.json<{ data: { type: string; relationships: { apps: { data: unknown[] } } }[] }>()
        .data;
      expect(artist.type).toBe('developers');
      expect(artist.relationships.apps.data).toHaveLength(4);
    });

    it('serves bundles, search and ?ids= batches only when told they exist', async () => {
      const bundle = `/api/apps/v1/catalog/us/app-bundles/${REFERENCE_IDS.bundle}?platform=web`;
      expect((await get(emulator.url, bundle, BROWSER)).status).toBe(200);
      emulator.setDrift({ sameOriginScope: 'proven' });
      expect((await get(emulator.url, bundle, BROWSER)).status).toBe(404);
      expect((await get(emulator.url, `/api/apps/v1/catalog/us/search?term=meta&platform=web`, BROWSER)).status).toBe(
        404,
      );
      expect((await get(emulator.url, `${app}?platform=web`, BROWSER)).status).toBe(200);
    });
  });

  describe('the customer-reviews feed', () => {
    it('answers the envelope without entry always, after a burst, or on one URL form only', async () => {
      expect(await entriesOf(emulator.url, feedPath())).toBe(50);
      emulator.setDrift({ reviewsFeed: 'empty' });
      const empty = (await get(emulator.url, feedPath())).json<{ feed: Record<string, unknown> }>().feed;
      expect(empty.entry).toBeUndefined();
      expect(Object.keys(empty).sort()).toEqual(['author', 'icon', 'id', 'link', 'rights', 'title', 'updated']);

      emulator.setDrift({ reviewsFeed: 'empty-after-burst', feedBurst: 3 });
      const counts = [];
      for (let i = 0; i < 5; i++) counts.push(await entriesOf(emulator.url, feedPath()));
      // Every feed request of the last minute counts (the two above too): full pages, then empty ones only.
      const firstEmpty = counts.indexOf(0);
      expect(firstEmpty).toBeGreaterThanOrEqual(0);
      expect(counts.slice(0, firstEmpty).every((n) => n === 50)).toBe(true);
      expect(counts.slice(firstEmpty).every((n) => n === 0)).toBe(true);
      expect(counts.at(-1)).toBe(0);

      emulator.setDrift({ reviewsFeed: 'empty-one-form' });
      expect(await entriesOf(emulator.url, feedPath())).toBe(0);
      expect(
        await entriesOf(emulator.url, `/us/rss/customerreviews/id=${REFERENCE_IDS.app}/page=1/sortby=mostrecent/json`),
      ).toBe(50);
    });
  });

  describe('store pages', () => {
    it('carry reviews, ratings and "You Might Also Like" in their serialized server data', async () => {
      const page = await get(emulator.url, `/us/app/id${REFERENCE_IDS.app}`);
      const data = serverData(page.text) as {
        data: { data: { shelfMapping: Record<string, { items: Record<string, unknown>[] }> } }[];
      };
      const shelves = data.data[0].data.shelfMapping;
      const [review] = shelves.allProductReviews.items;
      expect(review.$kind).toBe('Review');
      expect(Object.keys(review).sort()).toEqual([
        '$kind',
        'contents',
        'date',
        'dateText',
        'id',
        'rating',
        'reviewerName',
        'title',
      ]);
      expect(shelves.productRatings.items[0].totalNumberOfRatings).toBeGreaterThan(1000);
      expect(shelves.similarItems.items.length).toBeGreaterThan(0);
      expect(shelves.similarItems.items[0].$kind).toBe('Lockup');
      emulator.setDrift({ pageData: 'none' });
      expect((await get(emulator.url, `/us/app/id${REFERENCE_IDS.app}`)).text).not.toContain('serialized-server-data');
    });

    it('carry the token in the serialized data, or nowhere (injected at run time)', async () => {
      emulator.setDrift({ token: 'serialized-data' });
      const page = (await get(emulator.url, `/us/app/id${REFERENCE_IDS.app}`)).text;
      expect(JSON.stringify(serverData(page))).toContain(emulator.token());
      const script = await get(emulator.url, moduleScriptOf(page));
      expect(script.text).not.toContain(emulator.token());
      emulator.setDrift({ token: 'nowhere' });
      const bare = (await get(emulator.url, `/us/app/id${REFERENCE_IDS.app}`)).text;
      expect(bare).not.toContain(emulator.token());
      expect((await get(emulator.url, moduleScriptOf(bare))).text).not.toContain(emulator.token());
    });
  });
});
