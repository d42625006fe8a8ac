import { type ParamsSchema, type PricedRoute, routeParamSchemas } from '@appcat/routes';
import {
  bazaarResourceServerExtension,
  declareDiscoveryExtension,
  type DiscoveryExtension,
} from '@x402/extensions/bazaar';
import type { JsonSchema } from './param-schemas.js';
import { paramExample } from './service-facts.js';

/** The `extensions` member of a PaymentRequired carrying the bazaar declaration. */
export type BazaarExtensions = { bazaar: DiscoveryExtension };

/** A record like the ones `data.results` holds, so a catalogue can show what a call returns. */
function exampleRecord(route: PricedRoute): Record<string, unknown> {
  if (route.store === 'google-play' && route.id === 'apps.reviews')
    return {
      id: '017452fc-0d4b-471d-b406-bcf0f52387a7',
      appId: 'com.google.android.apps.translate',
      userName: 'reader',
      score: 5,
      text: 'Works well.',
      updated: '2026-07-06T13:55:24.077Z',
    };
  if (route.store === 'google-play')
    return {
      appId: 'com.google.android.apps.messaging',
      title: 'Google Messages',
      developer: 'Google LLC',
      price: 0,
      free: true,
      score: 4.56,
    };
  switch (route.id) {
    case 'apps.search':
    case 'apps.get':
      return {
        wrapperType: 'software',
        trackId: 284882215,
        trackName: 'Facebook',
        bundleId: 'com.facebook.Facebook',
        price: 0,
      };
    case 'apps.reviews':
    case 'bundles.reviews':
      return {
        id: '11812345678',
        appId: '284882215',
        userName: 'reader',
        score: 5,
        title: 'Great',
        text: 'Works well.',
        updated: '2025-09-28T14:03:11-07:00',
      };
    case 'developers.get':
      return { wrapperType: 'artist', artistId: 284882218, artistName: 'Meta Platforms, Inc.' };
    case 'apps.ratings':
      return {
        appId: '284882215',
        country: 'us',
        average: 4.7,
        count: 29237806,
        histogram: { '1': 1214659, '2': 271878, '3': 691924, '4': 1989144, '5': 25070201 },
      };
    case 'apps.privacy':
      return {
        appId: '284882215',
        managePrivacyChoicesUrl: null,
        privacyTypes: [{ identifier: 'DATA_LINKED_TO_YOU', privacyType: 'Data Linked to You', dataCategories: [] }],
      };
    case 'apps.versions':
      return { versionDisplay: '437.1', releaseDate: '2026-07-05', releaseNotes: 'Performance optimizations.' };
    case 'charts.get':
      return { rank: 1, id: '284882215', name: 'Facebook', artistName: 'Meta Platforms, Inc.', genreId: '6005' };
    case 'suggestions.search':
      return { term: 'chess', priority: 6859 };
    default:
      // Web catalogue resources (similar apps, bundles): JSON:API objects.
      return {
        id: '1482985563',
        type: route.id === 'bundles.search' || route.id === 'bundles.get' ? 'app-bundles' : 'apps',
        attributes: { name: 'Example' },
      };
  }
}

const OUTPUT_SCHEMA: JsonSchema = {
  properties: {
    status: { type: 'integer' },
    message: { type: 'string' },
    data: {
      type: 'object',
      properties: { resultCount: { type: 'integer' }, results: { type: 'array', items: { type: 'object' } } },
      required: ['resultCount', 'results'],
    },
  },
  required: ['status', 'message', 'data'],
};

/** The example value of each parameter of an object schema. */
function examples(route: PricedRoute, params: ParamsSchema): Record<string, string | number> {
  return Object.fromEntries(Object.keys(params.properties).map((name) => [name, paramExample(route, name)]));
}

/**
 * The bazaar discovery declaration of a priced route (before the per-request enrichment): its query
 * and path parameters with their schemas and examples, and an example of the envelope it answers.
 */
export function bazaarDeclaration(route: PricedRoute): DiscoveryExtension {
  const { path, query } = routeParamSchemas(route);
  const { bazaar } = declareDiscoveryExtension({
    input: examples(route, query),
    inputSchema: query,
    ...(route.pathParams.length > 0 ? { pathParams: examples(route, path), pathParamsSchema: path } : {}),
    output: {
      example: { status: 200, message: 'ok', data: { resultCount: 1, results: [exampleRecord(route)] } },
      schema: OUTPUT_SCHEMA,
    },
  });
  return bazaar;
}

/** `/api/apps/{appId}` → `/api/apps/:appId`, the route pattern form the bazaar extension reads. */
function routePattern(route: PricedRoute): string {
  return route.path.replace(/\{(\w+)\}/g, ':$1');
}

/**
 * The declaration as a resource server sends it for one request: the library's own enrichment adds
 * the method, the route template and the request's path parameters. `urlPath` is the request's
 * path without the query.
 */
export function bazaarExtensionsFor(
  declaration: DiscoveryExtension,
  route: PricedRoute,
  urlPath: string,
): BazaarExtensions {
  const context = { method: 'GET', routePattern: routePattern(route), adapter: { getPath: () => urlPath } };
  return { bazaar: bazaarResourceServerExtension.enrichDeclaration!(declaration, context) as DiscoveryExtension };
}
