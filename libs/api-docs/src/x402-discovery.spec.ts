import type { X402Requirement } from '@appcat/contracts';
import { PRICED_ROUTES, type PricedRoute, validateRouteInput } from '@appcat/routes';
import { validateDiscoveryExtension } from '@x402/extensions/bazaar';
import { buildX402Discovery } from './x402-discovery.js';

const accepts = (route: PricedRoute): X402Requirement[] =>
  (route.networks === 'extended' ? ['eip155:8453', 'eip155:137'] : ['eip155:8453']).map((network) => ({
    scheme: 'exact',
    network,
    amount: '3000',
    asset: '0xA',
    payTo: '0xB',
  }));

describe('x402 discovery document', () => {
  const doc = buildX402Discovery('https://appcat.test', accepts, new Date('2026-01-02T03:04:05Z'));

  it('lists every priced route as an absolute URL that passes validation (so it answers with the 402 challenge)', () => {
    expect(doc.resources).toHaveLength(PRICED_ROUTES.length);
    PRICED_ROUTES.forEach((route, i) => {
      const url = new URL(doc.resources[i]);
      expect(url.origin).toBe('https://appcat.test');
      const pattern = new RegExp(`^${route.path.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`);
      const match = pattern.exec(url.pathname);
      expect(match).not.toBeNull();
      const result = validateRouteInput(route, { ...match!.groups }, Object.fromEntries(url.searchParams));
      expect(result).toMatchObject({ ok: true });
    });
  });

  it("gives each item its network set's accepts, the price and a valid bazaar declaration", () => {
    expect(doc).toMatchObject({
      version: 1,
      x402Version: 2,
      pagination: { total: PRICED_ROUTES.length, offset: 0, limit: PRICED_ROUTES.length },
    });
    for (const [i, route] of PRICED_ROUTES.entries()) {
      const item = doc.items[i];
      expect(item).toMatchObject({
        resource: `https://appcat.test${route.path}`,
        type: 'http',
        method: 'GET',
        x402Version: 2,
        priceUsd: '0.003',
      });
      expect(item.accepts).toEqual(accepts(route));
      expect(item.lastUpdated).toBe('2026-01-02T03:04:05.000Z');
      expect(validateDiscoveryExtension(item.extensions.bazaar as never)).toEqual({ valid: true });
    }
    expect(doc.documents.openapi).toBe('https://appcat.test/openapi.json');
  });
});
