import { PRICED_ROUTES, type PricedRoute } from './route-table.js';
import { validateRouteInput } from './validate-route-input.js';

const byId = (id: string): PricedRoute => PRICED_ROUTES.find((r) => r.id === id)!;
const check = (id: string, path: Record<string, string>, query: Record<string, string | string[]>) =>
  validateRouteInput(byId(id), path, query);

describe('validateRouteInput', () => {
  it('has the nine routes of the spec, each priced at 3000 µUSD', () => {
    expect(PRICED_ROUTES.map((r) => r.path)).toEqual([
      '/api/apps',
      '/api/apps/{appId}',
      '/api/apps/{appId}/reviews',
      '/api/apps/{appId}/similar',
      '/api/bundles',
      '/api/bundles/{bundleId}',
      '/api/bundles/{bundleId}/reviews',
      '/api/bundles/{bundleId}/similar',
      '/api/developers/{developerId}',
    ]);
    expect(new Set(PRICED_ROUTES.map((r) => r.price))).toEqual(new Set([3000n]));
  });

  it.each([
    ['apps.search', {}, {}, 'term is required'],
    ['apps.search', {}, { term: '' }, 'term is required'],
    ['apps.search', {}, { term: '   ' }, 'term must not be empty'],
    ['apps.search', {}, { term: 'x'.repeat(201) }, 'term must be at most 200 characters'],
    ['apps.search', {}, { term: ['a', 'b'] }, 'term must be given only once'],
    ['apps.search', {}, { term: 'chess', page: '0' }, 'page must be an integer from 1 to 10'],
    ['apps.search', {}, { term: 'chess', page: '1.5' }, 'page must be an integer from 1 to 10'],
    ['apps.search', {}, { term: 'chess', page: '11' }, 'page must be an integer from 1 to 10'],
    ['apps.search', {}, { term: 'chess', country: 'zz' }, 'country must be an ISO 3166-1 alpha-2 country code such as us'],
    ['apps.search', {}, { term: 'chess', lang: 'english!' }, 'lang must be a language tag such as en-us'],
    ['apps.reviews', { appId: '1' }, { sort: 'newest' }, 'sort must be one of: recent, helpful'],
    ['apps.reviews', { appId: '1' }, { page: '11' }, 'page must be an integer from 1 to 10'],
    ['apps.get', { appId: '../../etc' }, {}, 'appId must be a numeric App Store id or a bundle identifier such as com.example.app'],
    ['apps.get', { appId: 'x'.repeat(156) }, {}, 'appId must be at most 155 characters'],
    ['bundles.get', { bundleId: 'com.example' }, {}, 'bundleId must be a numeric App Store bundle id'],
    ['developers.get', { developerId: '12a' }, {}, 'developerId must be a numeric App Store developer id'],
  ])('%s %j %j → 400 "%s"', (id, path, query, message) => {
    expect(check(id, path, query)).toEqual({ ok: false, message });
  });

  it('reports the path parameter before the query', () => {
    expect(check('apps.reviews', { appId: '/' }, { sort: 'bad' })).toMatchObject({ ok: false, message: expect.stringMatching(/^appId/) });
  });

  it('accepts valid input, ignores unknown parameters and normalises it for the catalog', () => {
    const result = check('apps.search', {}, { term: ' chess ', country: 'GB', lang: 'en_GB', page: '2', utm: ['a', 'b'] });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(byId('apps.search').toCatalogQuery(result.params)).toEqual({ route: 'apps.search', term: 'chess', page: 2, country: 'gb', lang: 'en-gb' });
  });

  it('applies defaults', () => {
    const result = check('apps.reviews', { appId: 'com.facebook.Facebook' }, {});
    expect(result.ok && byId('apps.reviews').toCatalogQuery(result.params)).toEqual({
      route: 'apps.reviews',
      appId: 'com.facebook.Facebook',
      page: 1,
      country: 'us',
      sort: 'recent',
    });
  });
});
