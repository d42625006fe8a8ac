import { readFileSync } from 'node:fs';
import { REFERENCE_IDS, startStoreEmulator } from '@appcat/store-emulator';
import { AppleUrls } from '../src/apple/apple-urls.js';
import { feedLastPage, parseReviewsFeed } from '../src/apple/reviews-feed.js';
import { catalogueReviewsSource } from '../src/apple/sources/catalogue-reviews.js';
import { parseStorePage } from '../src/apple/store-page-data.js';

/**
 * The parsers of every Apple source, on public captures kept as data in test/fixtures/apple:
 * - feed-page-01.json and empty-feed-no-entry.json: ziyi28/app-review-insights,
 *   tests/fixtures/apple/page-01.json and tests/fixtures/apple/empty-feed-no-entry.json (the feed's
 *   suspect-empty envelope received 2026-08-12);
 * - catalogue-reviews.json: `user-reviews` of the same-origin catalogue as maintained scrapers record
 *   them in their tests (2026-09/10; fields `date, isEdited, rating, review, title, userName,
 *   developerResponse`, as joeseesun/qiaomu-app-review-insights and others read them);
 * - app-page.html: the serialized server data of an app page as public parsers of 2026 read it
 *   (`$kind: "Review"` with `id, title, date, dateText, contents, rating, reviewerName`, nested at any
 *   depth; joeseesun/qiaomu-app-review-insights src/lib/appstore/fetcher.ts). No raw page capture
 *   is published; the ratings and "You Might Also Like" shelves are modelled.
 */
const fixture = (name: string) => readFileSync(new URL(`./fixtures/apple/${name}`, import.meta.url), 'utf8');

describe('the feed parser, on real captures', () => {
  it('reads a page of reviews, each field from its label', () => {
    const reviews = parseReviewsFeed(fixture('feed-page-01.json'), '839285684', 'itunes.apple.com');
    expect(reviews).toHaveLength(2);
    expect(reviews[1]).toEqual({
      id: '8435931488',
      appId: '839285684',
      userName: 'ReviewerTwo',
      userUrl: 'https://itunes.apple.com/us/reviews?user=u2',
      version: '3.2.0',
      score: 1,
      title: 'Subscription is too expensive',
      text: 'You have to pay to unlock anything useful. Way too expensive.',
      url: 'https://apps.apple.com/us/review?appId=839285684&reviewId=8435931488',
      updated: '2026-07-19T09:12:00-07:00',
      voteSum: 0,
      voteCount: 0,
    });
    expect(feedLastPage(fixture('feed-page-01.json'))).toBe(10);
  });

  it('reads the 2026 suspect-empty envelope as no reviews and no last page, which the feed source then disbelieves', () => {
    const body = fixture('empty-feed-no-entry.json');
    expect(parseReviewsFeed(body, '839285684', 'itunes.apple.com')).toEqual([]);
    expect(feedLastPage(body)).toBeUndefined();
  });

  it("is matched by the emulator's empty envelope: the same fields, every paging link empty", async () => {
    const emulator = await startStoreEmulator({ seed: 3 });
    try {
      emulator.setDrift({ reviewsFeed: 'empty' });
      const response = await fetch(
        `${emulator.url}/us/rss/customerreviews/page=1/id=${REFERENCE_IDS.app}/sortby=mostrecent/json`,
      );
      const emulated = (await response.json()) as { feed: Record<string, unknown> };
      const captured = JSON.parse(fixture('empty-feed-no-entry.json')) as { feed: Record<string, unknown> };
      expect(Object.keys(emulated.feed).sort()).toEqual(Object.keys(captured.feed).sort());
      const hrefs = (feed: Record<string, unknown>) =>
        (feed.link as { attributes: { rel: string; href: string } }[])
          .filter((l) => !['alternate', 'self'].includes(l.attributes.rel))
          .map((l) => [l.attributes.rel, l.attributes.href]);
      expect(hrefs(emulated.feed)).toEqual(hrefs(captured.feed));
    } finally {
      await emulator.close();
    }
  });
});

describe('the same-origin catalogue reviews parser', () => {
  const urls = new AppleUrls({
    itunesBaseUrl: 'https://itunes.example',
    webBaseUrl: 'https://apps.example',
    ampApiBaseUrl: 'https://amp.example',
    tokenPagePath: '/us/app/id1',
  });

  it('maps user-reviews to review objects, asking 20 at a time with the page sort and platform=web', async () => {
    const asked: URL[] = [];
    const document = JSON.parse(fixture('catalogue-reviews.json')) as Record<string, unknown>;
    const source = catalogueReviewsSource(
      {
        name: 'catalogue',
        urls: urls.sameOrigin,
        document: async (url) => (asked.push(url), url.searchParams.get('offset') === '0' ? document : { data: [] }),
      },
      async () => 0,
    );
    const reviews = await source.load({ country: 'us', trackId: '324684580', page: 1, sort: 'recent' });
    expect(asked.map((u) => [u.pathname, u.searchParams.get('offset'), u.searchParams.get('limit')])).toEqual([
      ['/api/apps/v1/catalog/us/apps/324684580/reviews', '0', '20'],
      ['/api/apps/v1/catalog/us/apps/324684580/reviews', '20', '20'],
      ['/api/apps/v1/catalog/us/apps/324684580/reviews', '40', '10'],
    ]);
    expect(asked[0].searchParams.get('platform')).toBe('web');
    expect(asked[0].searchParams.get('sort')).toBe('recent');
    expect(reviews).toEqual([
      {
        id: '14622591346',
        appId: '324684580',
        userName: 'J M',
        userUrl: '',
        version: '',
        score: 5,
        title: 'What is up',
        text: 'Only a human can give a true five star rating.',
        url: '',
        updated: '2026-10-03T12:26:58Z',
        voteSum: 0,
        voteCount: 0,
      },
      expect.objectContaining({ id: '123456', score: 2, text: 'The application crashes after the update.' }),
    ]);
  });
});

describe("the store page's serialized data parser", () => {
  it('finds reviews at any depth in page order, the rating count, and the similar lockups it can read', () => {
    const page = parseStorePage(fixture('app-page.html'), '324684580', 'us', 'apps.apple.com');
    expect(page.title).toBe('Spotify: Music and Podcasts');
    expect(page.reviews.map((r) => [r.id, r.score, r.userName, r.updated])).toEqual([
      ['11904118451', 5, 'A', '2026-04-10T12:00:00.000Z'],
      ['11904118452', 4, 'B', '2026-04-09T12:00:00.000Z'],
    ]);
    expect(page.reviews[1].text).toBe('Nice but the shuffle repeats');
    expect(page.ratingCount).toBe(35_000_000);
    expect(page.similar).toEqual([
      {
        id: '1017492454',
        type: 'apps',
        href: '/v1/catalog/us/apps/1017492454',
        attributes: { name: 'Pandora: Music & Podcasts', artistName: 'Pandora Media, LLC', url: '' },
      },
    ]);
  });

  it('calls a page without serialized data an unreadable answer', () => {
    expect(() => parseStorePage('<html><body>redesigned</body></html>', '1', 'us', 'apps.apple.com')).toThrow(
      'upstream store answered a store page without its serialized data (apps.apple.com)',
    );
  });
});
