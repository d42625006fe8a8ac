import { type PricedRoute, ROUTE_TABLES, validateRouteInput } from '@appcat/routes';
import { validateDiscoveryExtension } from '@x402/extensions/bazaar';
import { bazaarDeclaration } from './bazaar.js';
import { buildCatalogueMarkdown } from './catalogue-markdown.js';
import { buildLlmsTxt } from './llms-txt.js';
import { buildOpenApiDocument } from './openapi.js';
import { exampleUrlPath } from './service-facts.js';
import { buildSkillMarkdown } from './skill-markdown.js';
import { buildX402Discovery } from './x402-discovery.js';

const BASE = 'https://play.appcat.test';
const play = ROUTE_TABLES['google-play'];

/** The example call of a route, split as the gateway would route it. */
function exampleInput(route: PricedRoute) {
  const url = new URL(BASE + exampleUrlPath(route));
  const pattern = new RegExp(`^${route.path.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`);
  const groups = pattern.exec(url.pathname)!.groups ?? {};
  const path = Object.fromEntries(Object.entries(groups).map(([k, v]) => [k, decodeURIComponent(v)]));
  return { path, query: Object.fromEntries(url.searchParams) };
}

describe("Google Play's documents, generated from its own table", () => {
  it('describe only its routes, at its address, under its name', () => {
    const openapi = buildOpenApiDocument(BASE, play);
    expect(Object.keys(openapi.paths).sort()).toEqual(
      [
        '/api/apps',
        '/api/apps/{appId}',
        '/api/apps/{appId}/reviews',
        '/api/apps/{appId}/similar',
        '/api/credits/balance',
        '/api/credits/topup',
        '/api/developers/{developerId}',
      ].sort(),
    );
    expect((openapi.info as { title: string }).title).toBe('appcat: pay-per-call Google Play catalog for AI agents');
    expect(openapi.servers).toEqual([{ url: BASE }]);
    for (const page of [buildCatalogueMarkdown(BASE, play), buildLlmsTxt(BASE, play), buildSkillMarkdown(BASE, play)]) {
      expect(page).toContain('Google Play');
      expect(page).toContain('/api/developers/');
      expect(page).not.toContain('/api/bundles');
      expect(page).not.toContain('App Store');
    }
    expect(buildSkillMarkdown(BASE, play)).toContain('Five `GET` routes, USD 0.003');
  });

  it('give examples that pass its validation, and a valid bazaar declaration', () => {
    for (const route of play.routes) {
      const { path, query } = exampleInput(route);
      const examples: Record<string, Record<string, string>> = {
        'apps.search': {},
        'apps.get': { appId: 'com.mojang.minecraftpe' },
        'apps.reviews': { appId: 'com.mojang.minecraftpe' },
        'apps.similar': { appId: 'com.mojang.minecraftpe' },
        'developers.get': { developerId: '5700313618786177705' },
      };
      expect(path).toEqual(examples[route.id]);
      expect(validateRouteInput(route, path, query)).toMatchObject({ ok: true });
      // A review where the route gives reviews, an app in the developer list's shape everywhere else.
      expect(bazaarDeclaration(route).info.output?.example).toMatchObject({
        data: { results: [route.id === 'apps.reviews' ? { score: 5 } : { developer: 'Google LLC' }] },
      });
    }
    const discovery = buildX402Discovery(BASE, () => [], new Date(0), play);
    expect(
      validateDiscoveryExtension(
        discovery.items[0].extensions!.bazaar as Parameters<typeof validateDiscoveryExtension>[0],
      ),
    ).toMatchObject({ valid: true });
    expect(discovery.resources).toEqual([
      `${BASE}/api/apps?term=chess`,
      `${BASE}/api/apps/com.mojang.minecraftpe`,
      `${BASE}/api/apps/com.mojang.minecraftpe/reviews`,
      `${BASE}/api/apps/com.mojang.minecraftpe/similar`,
      `${BASE}/api/developers/5700313618786177705`,
    ]);
    expect(discovery.items[0].tags[0]).toBe('google-play');
  });
});
