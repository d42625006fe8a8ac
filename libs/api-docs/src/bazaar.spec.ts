import { PRICED_ROUTES } from '@appcat/routes';
import {
  extractDiscoveryInfo,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
} from '@x402/extensions/bazaar';
import { bazaarDeclaration, bazaarExtensionsFor } from './bazaar.js';
import { examplePath } from './service-facts.js';

describe('bazaar discovery declarations', () => {
  it.each(PRICED_ROUTES.map((r) => [r.id, r] as const))(
    '%s: valid before and after the per-request enrichment',
    (_id, route) => {
      const declaration = bazaarDeclaration(route);
      // Before enrichment the method is absent, which only the protocol-level check allows.
      expect(validateDiscoveryExtensionSpec(declaration as never)).toEqual({ valid: true });

      const { bazaar } = bazaarExtensionsFor(declaration, route, examplePath(route));
      expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
      expect(bazaar.info.input).toMatchObject({ type: 'http', method: 'GET' });
      const schema = bazaar.schema.properties.input.properties as Record<
        string,
        { properties?: object; required?: string[] }
      >;
      expect(Object.keys(schema.queryParams?.properties ?? {})).toEqual(route.queryParams);
      expect(schema.queryParams?.required).toEqual(route.queryParams.filter((n) => n === 'term'));
      if (route.pathParams.length > 0) {
        expect(Object.keys(schema.pathParams?.properties ?? {})).toEqual(route.pathParams);
        expect((bazaar as { routeTemplate?: string }).routeTemplate).toBe(route.path.replace(/\{(\w+)\}/g, ':$1'));
      }
      expect(bazaar.info.output).toMatchObject({
        type: 'json',
        example: { status: 200, message: 'ok', data: { resultCount: 1 } },
      });
    },
  );

  it("carries the request's own path parameters", () => {
    const route = PRICED_ROUTES.find((r) => r.id === 'apps.reviews')!;
    const { bazaar } = bazaarExtensionsFor(bazaarDeclaration(route), route, '/api/apps/com.example.app/reviews');
    expect(bazaar.info.input).toMatchObject({ pathParams: { appId: 'com.example.app' } });
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
  });

  it('is what a facilitator catalogues from a payment that echoes it', () => {
    const route = PRICED_ROUTES[0];
    const url = 'https://appcat.test/api/apps?term=chess';
    const extensions = bazaarExtensionsFor(bazaarDeclaration(route), route, '/api/apps');
    const accepted = {
      scheme: 'exact',
      network: 'eip155:8453',
      amount: '3000',
      asset: '0xA',
      payTo: '0xB',
      maxTimeoutSeconds: 300,
      extra: {},
    };
    const payload = {
      x402Version: 2,
      resource: { url, description: route.description, mimeType: 'application/json' },
      accepted,
      payload: {},
      extensions,
    };
    const discovered = extractDiscoveryInfo(payload as never, accepted as never);
    expect(discovered).toMatchObject({
      resourceUrl: 'https://appcat.test/api/apps',
      method: 'GET',
      discoveryInfo: { input: { type: 'http', queryParams: { term: 'chess' } } },
    });
  });
});
