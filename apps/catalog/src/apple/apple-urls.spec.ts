import { AppleUrls, pathSegment } from './apple-urls.js';

const urls = new AppleUrls({
  itunesBaseUrl: 'https://itunes.example/base',
  webBaseUrl: 'https://web.example',
  ampApiBaseUrl: 'https://amp.example',
  tokenPagePath: '/us/app/facebook/id284882215',
});

describe('AppleUrls', () => {
  it('percent-encodes query values, so a term cannot add parameters', () => {
    const url = urls.search('チェス & go=1#x', 'jp', 'ja-jp', 200);
    expect(url.host).toBe('itunes.example');
    expect(url.pathname).toBe('/base/search');
    expect([...url.searchParams.keys()]).toEqual(['term', 'country', 'media', 'entity', 'limit', 'lang']);
    expect(url.searchParams.get('term')).toBe('チェス & go=1#x');
    expect(url.searchParams.get('lang')).toBe('ja_jp');
  });

  it('keeps identifiers inside their path segment', () => {
    const url = urls.amp.app('us', '1/../../evil?x=1', { include: 'customers-also-bought-apps' });
    expect(url.host).toBe('amp.example');
    expect(url.pathname).toBe('/v1/catalog/us/apps/1%2F..%2F..%2Fevil%3Fx%3D1');
    expect(urls.reviewsFeed('gb', '@evil.example', 3, 'helpful').href).toBe(
      'https://itunes.example/base/gb/rss/customerreviews/page=3/id=%40evil.example/sortby=mostHelpful/json',
    );
  });

  it("asks the web catalogue as today's site does: iPhone plus every platform, a sparse limit on similar apps", () => {
    const similar = urls.amp.apps('us', ['1', '2'], { include: 'customers-also-bought-apps', lang: 'en-us' });
    expect(Object.fromEntries(similar.searchParams)).toEqual({
      ids: '1,2',
      platform: 'iphone',
      additionalPlatforms: 'appletv,ipad,iphone,mac,realityDevice,watch',
      include: 'customers-also-bought-apps',
      'sparseLimit[apps:customers-also-bought-apps]': '40',
      l: 'en-us',
    });
    const bundles = urls.amp.bundles('us', ['3'], { include: 'apps' });
    expect(bundles.searchParams.get('platform')).toBe('iphone');
    expect(bundles.searchParams.has('sparseLimit[apps:customers-also-bought-apps]')).toBe(false);
    const search = urls.amp.search('us', 'meta', { types: 'apps,app-bundles', limit: 20, offset: 20 });
    expect(Object.fromEntries(search.searchParams)).toMatchObject({
      term: 'meta',
      types: 'apps,app-bundles',
      limit: '20',
      offset: '20',
      platform: 'iphone',
    });
  });

  it('refuses dot segments, which URL parsing would resolve', () => {
    for (const value of ['..', '.', '']) expect(() => pathSegment(value)).toThrow();
    expect(pathSegment('a..b')).toBe('a..b');
    // Already-encoded text is encoded again, so it reaches the server as text, not as dots.
    expect(pathSegment('%2e%2e')).toBe('%252e%252e');
  });
});
