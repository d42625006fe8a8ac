import { ErrorCode } from '@appcat/contracts';
import { readFileSync } from 'node:fs';
import { chartImplausible, parseItunesChart, parseMarketingChart } from '../src/apple/facts/chart-feeds.js';
import { privacyImplausible, readAppFacts, versionsImplausible } from '../src/apple/facts/catalogue-facts.js';
import { catalogueUserRating, parseCustomerReviewsRatings, ratingsImplausible } from '../src/apple/facts/ratings.js';
import { parseSearchHints, suggestionsImplausible } from '../src/apple/facts/search-hints.js';
import { WireException } from '@appcat/microservice';

/** The store-fact parsers and plausibility rules on public captures (test/fixtures/store-facts/README.md). */
const fixture = (name: string) => readFileSync(new URL(`./fixtures/store-facts/${name}`, import.meta.url), 'utf8');
const HOST = 'itunes.apple.com';
/** The typed failure a parser or rule throws. */
function wireErrorOf(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof WireException) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a WireException, got a result');
}
const attributesOf = (name: string) =>
  (JSON.parse(fixture(name)) as { data: { attributes: Record<string, unknown> }[] }).data[0].attributes;

describe('store-fact parsers on public captures', () => {
  it('reads a chart feed of one entry, written as an object, into a ranked entry with price and genre', () => {
    expect(parseItunesChart(fixture('itunes-chart-us-topfree-single.json'), HOST)).toEqual([
      {
        rank: 1,
        id: '1028103039',
        bundleId: 'com.unrollme.unrollapp',
        name: 'Unroll.Me',
        artistName: 'Unroll.Me',
        artistId: '1028103038',
        genreId: '6007',
        genreName: 'Productivity',
        price: 0,
        currency: 'USD',
        releaseDate: '2015-11-04T15:39:07-07:00',
        url: 'https://itunes.apple.com/us/app/unroll.me/id1028103039?mt=8&uo=2',
        icon: undefined,
      },
    ]);
  });

  it('reads the marketing tools feed, which has no price, bundle id or genre', () => {
    const [google] = parseMarketingChart(fixture('marketing-chart-us-topfree.json'), HOST);
    expect(google).toMatchObject({ rank: 1, id: '284815942', name: 'Google', artistName: 'Google LLC' });
    expect(google).not.toHaveProperty('price');
  });

  it('refuses an empty chart feed and an unreadable one, never answering an empty chart', () => {
    const empty = JSON.parse(fixture('itunes-chart-us-topfree-single.json')) as { feed: Record<string, unknown> };
    delete empty.feed.entry;
    const entries = parseItunesChart(JSON.stringify(empty), HOST);
    expect(entries).toEqual([]);
    expect(chartImplausible(entries)).toBe('a top chart without apps');
    expect(chartImplausible(parseItunesChart(fixture('itunes-chart-us-topfree-single.json'), HOST))).toBeUndefined();
    expect(wireErrorOf(() => parseItunesChart('{"feed":{"entry":[{"im:name":{}}]}}', HOST)).code).toBe(
      ErrorCode.UpstreamBadResponse,
    );
    expect(wireErrorOf(() => parseMarketingChart('<html></html>', HOST)).code).toBe(ErrorCode.UpstreamBadResponse);
  });

  it('reads the same histogram from the customer-reviews page and the web catalogue, one to five stars', () => {
    const fromPage = parseCustomerReviewsRatings(fixture('customer-reviews-ratings.json'), '389801252', 'us', HOST);
    const fromCatalogue = catalogueUserRating(attributesOf('amp-app-instagram-2026-07.json'), '389801252', 'us', HOST);
    const expected = {
      appId: '389801252',
      country: 'us',
      average: 4.7,
      count: 29237806,
      histogram: { '1': 1214659, '2': 271878, '3': 691924, '4': 1989144, '5': 25070201 },
    };
    expect(fromPage).toEqual(expected);
    expect(fromCatalogue).toEqual(expected);
    expect(ratingsImplausible(fromPage)).toBeUndefined();
  });

  it('refuses ratings whose counts do not add up, of another app, or in HTML', () => {
    const page = JSON.parse(fixture('customer-reviews-ratings.json')) as { ratingCount: number };
    const off = parseCustomerReviewsRatings(
      JSON.stringify({ ...page, ratingCount: page.ratingCount + 1 }),
      '389801252',
      'us',
      HOST,
    );
    expect(ratingsImplausible(off)).toBe('star counts adding up to 29237806, not 29237807');
    expect(ratingsImplausible({ ...off, count: 0, histogram: { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0 } })).toBe(
      'an average of 4.7 for 0 ratings',
    );
    expect(
      wireErrorOf(() => parseCustomerReviewsRatings(fixture('customer-reviews-ratings.json'), '1', 'us', HOST)).message,
    ).toContain('the ratings of another app');
    expect(
      wireErrorOf(() => parseCustomerReviewsRatings('<html><div class="rating-count">1</div></html>', '1', 'us', HOST))
        .message,
    ).toContain('a ratings page in HTML, not JSON');
  });

  it('reads the privacy label and the version history from web catalogue resources', () => {
    const facts = readAppFacts(attributesOf('amp-privacy-details.json'));
    expect(privacyImplausible(facts)).toBeUndefined();
    expect(facts.privacyDetails?.privacyTypes).toEqual([
      expect.objectContaining({
        identifier: 'DATA_USED_TO_TRACK_YOU',
        dataCategories: [
          { dataCategory: 'Contact Info', identifier: 'CONTACT_INFO', dataTypes: ['Email Address', 'Phone Number'] },
        ],
      }),
    ]);
    const instagram = readAppFacts(attributesOf('amp-app-instagram-2026-07.json'));
    expect(versionsImplausible(instagram)).toBeUndefined();
    expect(instagram.versionHistory?.[0]).toMatchObject({
      versionDisplay: '437.1',
      releaseTimestamp: '2026-07-05T16:28:19Z',
    });
  });

  it('refuses a resource without what was asked for, an unknown privacy type and an empty history', () => {
    const instagram = readAppFacts(attributesOf('amp-app-instagram-2026-07.json'));
    expect(privacyImplausible(instagram)).toBe('an app without the privacy details asked for');
    expect(privacyImplausible({ privacyDetails: { privacyTypes: [{ identifier: 'DATA_SOLD' }] } })).toBe(
      'privacy details of a type we do not know',
    );
    expect(versionsImplausible({ versionHistory: [] })).toBe('a version history without versions');
    expect(versionsImplausible({})).toBe('an app without the version history asked for');
  });

  it('reads search hints in the store’s order with their priority, entities decoded once', () => {
    expect(parseSearchHints(fixture('search-hints-cn-csgo.xml'), HOST)).toEqual([
      { term: 'csgo', priority: 6859 },
      { term: 'csgo开箱模拟器', priority: 4649 },
      { term: 'csgo交易', priority: 4648 },
      { term: 'cs：go', priority: 4605 },
    ]);
    const quoted =
      '<plist version="1.0"><dict><key>hints</key><array><dict><key>term</key><string>&#34;ustoz edu&#34; &amp;amp; co</string></dict>' +
      '<string>1234</string></array></dict></plist>';
    expect(parseSearchHints(quoted, HOST)).toEqual([{ term: '"ustoz edu" &amp; co' }, { term: '1234' }]);
  });

  it('refuses a body without a hints list, and no hints for a single letter', () => {
    expect(wireErrorOf(() => parseSearchHints('<plist version="1.0"><dict/></plist>', HOST)).message).toContain(
      'without a hints list',
    );
    expect(wireErrorOf(() => parseSearchHints('<html>', HOST)).code).toBe(ErrorCode.UpstreamBadResponse);
    const none = parseSearchHints('<plist version="1.0"><dict><key>hints</key><array/></dict></plist>', HOST);
    expect(none).toEqual([]);
    expect(suggestionsImplausible('qzxv', none)).toBeUndefined();
    expect(suggestionsImplausible('p', none)).toBe('no hints for the letter "p"');
  });
});
