/**
 * The sources each Apple route can be read from, by name, in their default order (see
 * docs/upstream.md). An operator reorders or trims them per route (APPLE_SOURCES_<ROUTE>) without a
 * release; the bundle reviews and bundle similar routes are built from the bundle, feed and similar
 * resources, so they follow the orders of bundles.get, apps.reviews and apps.similar.
 */
export const APPLE_SOURCES = {
  'apps.search': ['itunes', 'catalogue', 'amp-api'],
  'apps.get': ['itunes', 'catalogue'],
  'apps.reviews': ['feed', 'feed-id-first', 'catalogue', 'page'],
  'apps.similar': ['amp-api', 'catalogue', 'page'],
  'bundles.search': ['amp-api', 'catalogue'],
  'bundles.get': ['amp-api', 'catalogue', 'page'],
  'developers.get': ['itunes', 'catalogue'],
  // The store facts (facts/store-facts.ts). `app-facts` is the app's privacy label, version history and
  // rating in one catalogue request, ordered by apps.privacy's sources (apps.versions reads the same).
  'apps.ratings': ['customer-reviews', 'app-facts'],
  'apps.privacy': ['amp-api', 'catalogue'],
  'charts.get': ['itunes-rss', 'marketing-rss'],
  'suggestions.search': ['hints'],
} as const satisfies Record<string, readonly string[]>;

export type SourcedRoute = keyof typeof APPLE_SOURCES;
export type SourceName<R extends SourcedRoute> = (typeof APPLE_SOURCES)[R][number];

/** The configured order per route: a non-empty subset of the route's sources, each once. */
export type SourceOrders = { [R in SourcedRoute]: readonly SourceName<R>[] };

/** The environment variable holding a route's order: `apps.reviews` → `APPLE_SOURCES_APPS_REVIEWS`. */
export const sourceOrderVariable = (route: SourcedRoute) => `APPLE_SOURCES_${route.replace('.', '_').toUpperCase()}`;
