import { matchPricedRoute } from './route-table.js';

describe('matchPricedRoute', () => {
  it('names the route and decodes its path parameters', () => {
    expect(matchPricedRoute('/api/apps/284882215/reviews')).toEqual({
      route: expect.objectContaining({ id: 'apps.reviews' }),
      params: { appId: '284882215' },
    });
    expect(matchPricedRoute('/api/apps/com.example%2Eapp')?.params).toEqual({ appId: 'com.example.app' });
    expect(matchPricedRoute('/api/apps')?.route.id).toBe('apps.search');
    expect(matchPricedRoute('/api/developers/1')?.route.id).toBe('developers.get');
  });

  it('keeps a malformed encoding as sent, and names no route for an empty segment or an unknown path', () => {
    expect(matchPricedRoute('/api/apps/%E0%A4%A')?.params).toEqual({ appId: '%E0%A4%A' });
    expect(matchPricedRoute('/api/apps/')).toBeUndefined();
    expect(matchPricedRoute('/api/apps/1/other')).toBeUndefined();
    expect(matchPricedRoute('/api/nothing/1')).toBeUndefined();
  });
});
