/**
 * The upstream endpoints the emulator serves, by name: what stats count, what faults and the rate
 * limit match. Names follow Apple's hosts: iTunes Search/Lookup and the reviews feed
 * (itunes.apple.com), store pages (apps.apple.com), the web catalogue (amp-api), the catalogue the
 * site reads through its own origin (apps.apple.com/api/apps/v1/catalog/…); and Google Play's pages
 * (play.google.com/store/apps/…) and its batchexecute.
 */
export const ENDPOINTS = [
  'search',
  'lookup',
  'reviews',
  'page',
  'amp-apps',
  'amp-app-bundles',
  'amp-search',
  'same-origin',
  'play-page',
  'play-batch',
  'rss-charts',
  'marketing-charts',
  'ratings',
  'hints',
  'other',
] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

const SAME_ORIGIN_PATH = /^\/api\/apps\/v1\/catalog\//;
const AMP_PATH = /^\/v1\/catalog\/[^/]+\/(apps|app-bundles|search)(?:\/|$)/;
const FEED_PATH = /^\/[A-Za-z]{2}\/rss\/customerreviews\//i;
const PAGE_PATH = /^\/[a-z]{2}\/(app|app-bundle|developer)(?:\/|$)/;
const RSS_CHART_PATH = /^\/[A-Za-z]{2}\/rss\/top(free|paid|grossing)applications\//i;
const MARKETING_CHART_PATH = /^\/api\/v2\//;
const RATINGS_PATH = /^\/[a-z]{2}\/customer-reviews\//;
const HINTS_PATH = /^\/WebObjects\/MZSearchHints\.woa\//;
/** The scripts and styles the pages load (apps.apple.com/assets/…), counted with the pages. */
const ASSET_PATH = /^\/assets\//;

export function endpointOf(path: string): Endpoint {
  if (path.startsWith('/store/apps/') || path === '/store/search') return 'play-page';
  if (path.startsWith('/_/PlayStoreUi/data/batchexecute')) return 'play-batch';
  if (path === '/search') return 'search';
  if (path === '/lookup') return 'lookup';
  if (FEED_PATH.test(path)) return 'reviews';
  if (SAME_ORIGIN_PATH.test(path)) return 'same-origin';
  const amp = AMP_PATH.exec(path);
  if (amp) return `amp-${amp[1]}` as Endpoint;
  if (PAGE_PATH.test(path) || ASSET_PATH.test(path)) return 'page';
  if (RSS_CHART_PATH.test(path)) return 'rss-charts';
  if (MARKETING_CHART_PATH.test(path)) return 'marketing-charts';
  if (RATINGS_PATH.test(path)) return 'ratings';
  if (HINTS_PATH.test(path)) return 'hints';
  return 'other';
}

export function isEndpoint(value: unknown): value is Endpoint {
  return typeof value === 'string' && (ENDPOINTS as readonly string[]).includes(value);
}
