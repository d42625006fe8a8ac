import type { ChartKind } from '@appcat/contracts';
import { badResponse, isRecord } from '../../upstream/upstream-failures.js';
import { pathSegment } from '../apple-urls.js';

/**
 * One app of a top chart, whichever feed it came from. The two feeds carry different fields (the
 * iTunes feed has the price, the bundle id and the genre; the marketing tools feed has none of
 * them), so entries are mapped to this one shape and what a feed lacks is left out.
 */
export interface ChartEntry {
  /** 1 for the top of the chart. */
  rank: number;
  /** The app's track id. */
  id: string;
  bundleId?: string;
  name: string;
  artistName: string;
  artistId?: string;
  genreId?: string;
  genreName?: string;
  /** Price in the storefront's currency, 0 for free apps. */
  price?: number;
  currency?: string;
  releaseDate?: string;
  url?: string;
  icon?: string;
}

/** The most entries either feed is asked for: the iTunes feed gives 200, the marketing tools feed 100. */
export const ITUNES_CHART_LIMIT = 200;
export const MARKETING_CHART_LIMIT = 100;

const ITUNES_FEED: Record<ChartKind, string> = {
  'top-free': 'topfreeapplications',
  'top-paid': 'toppaidapplications',
  'top-grossing': 'topgrossingapplications',
};

/**
 * `https://itunes.apple.com/{cc}/rss/topfreeapplications/limit=200[/genre=6014]/json` (app-store-scraper
 * `list`; maintained scrapers of 2025–2026 ask it in this form).
 */
export function itunesChartUrl(itunesBaseUrl: string, country: string, chart: ChartKind, genre?: string): URL {
  const genrePart = genre === undefined ? '' : `/genre=${pathSegment(genre)}`;
  return new URL(
    `${itunesBaseUrl}/${pathSegment(country)}/rss/${ITUNES_FEED[chart]}/limit=${ITUNES_CHART_LIMIT}${genrePart}/json`,
  );
}

/**
 * The marketing tools feed (`https://rss.marketingtools.apple.com/api/v2/{cc}/apps/top-free/100/apps.json`):
 * free and paid charts only, no genre, 100 apps at most. Undefined when it has no such chart.
 */
export function marketingChartUrl(
  marketingBaseUrl: string,
  country: string,
  chart: ChartKind,
  genre?: string,
): URL | undefined {
  if (chart === 'top-grossing' || genre !== undefined) return undefined;
  return new URL(`${marketingBaseUrl}/api/v2/${pathSegment(country)}/apps/${chart}/${MARKETING_CHART_LIMIT}/apps.json`);
}

const label = (value: unknown): string | undefined =>
  isRecord(value) && typeof value.label === 'string' ? value.label : undefined;
const attributes = (value: unknown): Record<string, unknown> =>
  isRecord(value) && isRecord(value.attributes) ? value.attributes : {};
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function parseJson(body: string, what: string, host: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw badResponse(`${what} that is not JSON`, host);
  }
}

/** `im:image` lists sizes smallest first; the last is the largest. */
function largestImage(images: unknown): string | undefined {
  const list = Array.isArray(images) ? images : images === undefined ? [] : [images];
  return label(list[list.length - 1]);
}

function itunesEntry(entry: Record<string, unknown>, rank: number): ChartEntry | undefined {
  const id = text(attributes(entry.id)['im:id']);
  const name = label(entry['im:name']);
  if (!id || !/^\d{1,19}$/.test(id) || !name) return undefined;
  const price = attributes(entry['im:price']);
  const amount = Number(price.amount);
  const category = attributes(entry.category);
  const artistHref = text(attributes(entry['im:artist']).href);
  const links = Array.isArray(entry.link) ? entry.link : [entry.link];
  const link = links.find((l) => attributes(l).rel === 'alternate') ?? links[0];
  return {
    rank,
    id,
    bundleId: text(attributes(entry.id)['im:bundleId']),
    name,
    artistName: label(entry['im:artist']) ?? '',
    // Some artist links are not developer pages (…/artist/name/123); only `/id123` ones name an id.
    artistId: artistHref?.match(/\/id(\d+)/)?.[1],
    genreId: text(category['im:id']),
    genreName: text(category.label),
    price: Number.isFinite(amount) ? amount : undefined,
    currency: text(price.currency),
    releaseDate: label(entry['im:releaseDate']),
    url: text(attributes(link).href),
    icon: largestImage(entry['im:image']),
  };
}

/**
 * The iTunes chart feed: `{feed: {entry}}` with every value as text under `label`; `entry` is an
 * array, one object for a chart of one, absent for none (the reviews feed's quirks). Entries without
 * a numeric `im:id` are skipped; a feed of nothing else is unreadable, never an empty chart.
 */
export function parseItunesChart(body: string, host: string): ChartEntry[] {
  const document = parseJson(body, 'a chart feed', host);
  const feed = isRecord(document) ? document.feed : undefined;
  if (!isRecord(feed)) throw badResponse('JSON without a chart feed', host);
  const raw = feed.entry === undefined ? [] : Array.isArray(feed.entry) ? feed.entry : [feed.entry];
  const entries = raw.map((entry, i) => (isRecord(entry) ? itunesEntry(entry, i + 1) : undefined));
  const read = entries.filter((e): e is ChartEntry => e !== undefined);
  if (raw.length > 0 && read.length === 0) throw badResponse('a chart feed whose entries cannot be read', host);
  return read.map((entry, i) => ({ ...entry, rank: i + 1 }));
}

/** The marketing tools feed: `{feed: {results: [{id, name, artistName, …}]}}`, plain values. */
export function parseMarketingChart(body: string, host: string): ChartEntry[] {
  const document = parseJson(body, 'a chart feed', host);
  const feed = isRecord(document) ? document.feed : undefined;
  if (!isRecord(feed) || !Array.isArray(feed.results)) throw badResponse('JSON without a chart feed', host);
  const read: ChartEntry[] = [];
  for (const result of feed.results) {
    if (!isRecord(result)) continue;
    const id = text(result.id);
    const name = text(result.name);
    if (!id || !/^\d{1,19}$/.test(id) || !name) continue;
    read.push({
      rank: read.length + 1,
      id,
      name,
      artistName: text(result.artistName) ?? '',
      artistId: text(result.artistId),
      releaseDate: text(result.releaseDate),
      url: text(result.url),
      icon: text(result.artworkUrl100),
    });
  }
  if (feed.results.length > 0 && read.length === 0)
    throw badResponse('a chart feed whose entries cannot be read', host);
  return read;
}

/**
 * A store's top chart is never empty: an empty feed (how these feeds fail silently, as the reviews
 * feed does) is a failure of that source, not a chart.
 */
export function chartImplausible(entries: ChartEntry[]): string | undefined {
  return entries.length === 0 ? 'a top chart without apps' : undefined;
}
