import { AppIdParamDto, LookupQueryDto, PlayDeveloperQueryDto } from './dtos.js';
import { pricedRoute, ROUTE_TABLES } from './route-table.js';
import { validateRouteInput } from './validate-route-input.js';

const play = ROUTE_TABLES['google-play'].routes;
const playDeveloper = play.find((r) => r.id === 'developers.get')!;
const check = (developerId: string, query: Record<string, string> = {}) =>
  validateRouteInput(playDeveloper, { developerId }, query);

describe('the route table', () => {
  it('holds one table per store, each route with parameters read from its path and its DTOs', () => {
    expect(Object.keys(ROUTE_TABLES)).toEqual(['apple', 'google-play']);
    const reviews = ROUTE_TABLES.apple.routes.find((r) => r.id === 'apps.reviews')!;
    expect(reviews.pathParams).toEqual(['appId']);
    expect(reviews.queryParams).toEqual(['page', 'country', 'sort']);
    expect(ROUTE_TABLES.apple.routes.find((r) => r.id === 'developers.get')!.queryParams).toEqual([]);
    expect(play.map((r) => [r.path, r.networks, r.price])).toEqual([
      ['/api/apps', 'standard', 3000n],
      ['/api/apps/{appId}', 'standard', 3000n],
      ['/api/apps/{appId}/reviews', 'standard', 3000n],
      ['/api/apps/{appId}/similar', 'standard', 3000n],
      ['/api/developers/{developerId}', 'extended', 3000n],
    ]);
    expect(playDeveloper.queryParams).toEqual(['country']);
    // Google Play's reviews page and sort as the App Store's do, and are asked in a language.
    expect(play.find((r) => r.id === 'apps.reviews')!.queryParams).toEqual(['page', 'country', 'sort', 'lang']);
  });

  it('refuses a path template whose parameters are not what its path DTO checks', () => {
    const spec = {
      store: 'apple',
      id: 'apps.get',
      description: 'x',
      networks: 'standard',
      queryDto: LookupQueryDto,
    } as const;
    expect(() => pricedRoute({ ...spec, path: '/api/apps/{bundleId}', pathDto: AppIdParamDto })).toThrow(
      'apps.get: /api/apps/{bundleId} names {bundleId}, its path DTO checks appId',
    );
    expect(() => pricedRoute({ ...spec, path: '/api/apps', pathDto: AppIdParamDto })).toThrow(/names \{\}/);
    expect(() => pricedRoute({ ...spec, path: '/api/apps/{appId}', pathDto: PlayDeveloperQueryDto })).toThrow(
      /checks country/,
    );
  });
});

describe("Google Play's developers route", () => {
  it('takes a numeric id of up to 20 digits, kept as text, and defaults the country to us', () => {
    for (const id of ['5700313618786177705', '1', '99999999999999999999']) {
      const result = check(id);
      expect(result.ok && playDeveloper.toCatalogQuery(result.params)).toEqual({
        route: 'developers.get',
        developerId: id,
        country: 'us',
      });
    }
    const result = check('5700313618786177705', { country: 'GB' });
    expect(result.ok && playDeveloper.toCatalogQuery(result.params)).toMatchObject({ country: 'gb' });
  });

  it('takes a developer name as its pages write it', () => {
    for (const name of [
      'Mojang',
      'Google LLC',
      'Netflix, Inc.',
      'Supercell Oy',
      '株式会社ポケモン',
      'R',
      'Studio 42',
    ]) {
      expect(check(name)).toEqual({ ok: true, params: { developerId: name, country: undefined } });
    }
  });

  it.each([
    [
      '123456789012345678901',
      'developerId must be a numeric Google Play developer id of at most 20 digits, or a developer name',
    ],
    ['0123', 'developerId must be a numeric Google Play developer id of at most 20 digits, or a developer name'],
    [' Mojang', 'developerId must be a numeric Google Play developer id of at most 20 digits, or a developer name'],
    ['Mojang ', 'developerId must be a numeric Google Play developer id of at most 20 digits, or a developer name'],
    ['Moj\nang', 'developerId must be a numeric Google Play developer id of at most 20 digits, or a developer name'],
    ['M'.repeat(101), 'developerId must be at most 100 characters'],
    ['', 'developerId is required'],
  ])('refuses %j naming developerId', (id, message) => {
    expect(check(id)).toEqual({ ok: false, message });
  });

  it('refuses a country that is not an assigned ISO 3166-1 alpha-2 code, naming it', () => {
    expect(check('Mojang', { country: 'xx' })).toEqual({
      ok: false,
      message: 'country must be an ISO 3166-1 alpha-2 country code such as us',
    });
  });
});

describe("Google Play's app route", () => {
  const get = play.find((r) => r.id === 'apps.get')!;
  it('takes a package name, and refuses anything else naming appId', () => {
    expect(validateRouteInput(get, { appId: 'com.mojang.minecraftpe' }, { lang: 'de' })).toMatchObject({ ok: true });
    for (const appId of ['284882215', 'minecraft', 'com..x', '.com.x', 'com.x-y'])
      expect(validateRouteInput(get, { appId }, {})).toEqual({
        ok: false,
        message: 'appId must be an Android package name such as com.example.app',
      });
  });
});

describe("Google Play's reviews route", () => {
  const reviews = play.find((r) => r.id === 'apps.reviews')!;
  it("pages and sorts as the App Store's does, with a language, defaults applied", () => {
    const result = validateRouteInput(reviews, { appId: 'com.mojang.minecraftpe' }, { lang: 'DE_de', country: 'GB' });
    expect(result.ok && reviews.toCatalogQuery(result.params)).toEqual({
      route: 'apps.reviews',
      appId: 'com.mojang.minecraftpe',
      page: 1,
      country: 'gb',
      sort: 'recent',
      lang: 'de-de',
    });
    expect(validateRouteInput(reviews, { appId: 'com.mojang.minecraftpe' }, { sort: 'newest' })).toEqual({
      ok: false,
      message: 'sort must be one of: recent, helpful',
    });
    expect(validateRouteInput(reviews, { appId: 'com.mojang.minecraftpe' }, { page: '11' })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^page must be/),
    });
  });
});
