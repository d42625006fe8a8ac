import type { CatalogQuery } from '@appcat/contracts';
import type { CatalogueListing } from '@appcat/store-emulator';

/** Small, seeded PRNG (mulberry32): the same seed draws the same requests. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Draws ranks 0..n-1 with probability proportional to 1 / (rank + 1)^s. */
export function zipf(n: number, s: number, random: () => number): () => number {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) cumulative[i] = total += 1 / Math.pow(i + 1, s);
  return () => {
    const x = random() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/**
 * `count` of `items` (most popular first) drawn with Zipf exponent `s` from a generator seeded with
 * `seed`: the same arguments draw the same sequence. A fixed mix a load generator can replay, so that
 * everything in it can be fetched once before the measurement.
 */
export function zipfDraws<T>(items: readonly T[], count: number, s: number, seed: number): T[] {
  const rank = zipf(items.length, s, seededRandom(seed));
  return Array.from({ length: count }, () => items[rank()]);
}

/**
 * Ids for ranks past the emulator's catalogue, should a run ask for more apps than it has: ranks with
 * no app behind them (cached "not found" answers).
 */
const MISSING_ID_BASE = 1_900_000_000;

export interface WorkloadSettings {
  apps: number;
  storefronts: number;
  zipfS: number;
  seed: number;
}

/**
 * Share of each route in the traffic; mostly app lookups, as an agent browsing the store would send.
 * The store facts come next to reviews: ratings and charts as often as similar apps, suggestions as a
 * search's companion, version history and privacy labels when an app is looked at closely.
 */
export const ROUTE_MIX: [CatalogQuery['route'], number][] = [
  ['apps.get', 0.59],
  ['apps.search', 0.09],
  ['apps.reviews', 0.07],
  ['apps.similar', 0.05],
  ['apps.ratings', 0.04],
  ['charts.get', 0.04],
  ['suggestions.search', 0.03],
  ['apps.versions', 0.02],
  ['developers.get', 0.02],
  ['bundles.get', 0.02],
  ['apps.privacy', 0.01],
  ['bundles.search', 0.01],
  ['bundles.reviews', 0.005],
  ['bundles.similar', 0.005],
];

/** Genres the emulator stocks, most browsed first: charts of genres it does not stock are empty there (a 502). */
const CHART_GENRES = ['6014', '6005', '6008', '7012', '6007', '6015', '6013', '7004'];

/**
 * Catalog requests drawn from Zipf distributions: app popularity over `apps` ranks (the emulator's
 * apps, most rated first), storefronts over `storefronts` ranks (the emulator's, in its order: us
 * first), search terms over the most common words of app names, bundles over the
 * emulator's bundles. Reviews ask page 1 most of the time, sorted by most recent most of the time.
 */
export class Workload {
  private readonly random: () => number;
  private readonly app: () => number;
  private readonly storefront: () => number;
  private readonly term: () => number;
  private readonly bundle: () => number;
  private readonly page: () => number;
  private readonly storefronts: string[];

  constructor(
    private readonly listing: CatalogueListing,
    settings: WorkloadSettings,
  ) {
    this.random = seededRandom(settings.seed);
    this.storefronts = listing.storefronts.slice(0, settings.storefronts);
    this.app = zipf(settings.apps, settings.zipfS, this.random);
    this.storefront = zipf(this.storefronts.length, 1, this.random);
    this.term = zipf(Math.min(1000, listing.terms.length), 1, this.random);
    this.bundle = zipf(listing.bundles.length, 1, this.random);
    // Page 1 most of the time, deeper pages ever more rarely.
    this.page = zipf(10, 2, this.random);
  }

  next(): CatalogQuery {
    const route = this.route();
    const country = this.storefronts[this.storefront()];
    switch (route) {
      case 'apps.get': {
        const rank = this.app();
        const known = this.listing.apps[rank];
        // One lookup in ten by bundle identifier, as callers who know the app by its bundle do.
        const appId = known && this.random() < 0.1 ? known.bundleId : String(known?.trackId ?? MISSING_ID_BASE + rank);
        return { route, appId, country };
      }
      case 'apps.search':
        return { route, term: this.listing.terms[this.term()], page: this.random() < 0.8 ? 1 : 2, country };
      case 'apps.reviews':
        return {
          route,
          appId: this.appId(),
          page: this.page() + 1,
          country,
          sort: this.random() < 0.9 ? 'recent' : 'helpful',
        };
      case 'apps.similar':
        return { route, appId: this.appId(), country };
      case 'developers.get': {
        const rank = this.app();
        return { route, developerId: String(this.listing.apps[rank]?.developerId ?? MISSING_ID_BASE + rank) };
      }
      case 'bundles.get':
        return { route, bundleId: this.bundleId(), country };
      case 'bundles.search':
        return { route, term: this.listing.terms[this.term()], page: 1, country };
      case 'bundles.reviews':
        return { route, bundleId: this.bundleId(), page: 1, country, sort: 'recent' };
      case 'bundles.similar':
        return { route, bundleId: this.bundleId(), country };
      case 'apps.ratings':
        return { route, appId: this.appId(), country };
      case 'apps.privacy':
      case 'apps.versions':
        return { route, appId: this.appId(), country };
      case 'charts.get': {
        // The overall free chart most of the time; a genre's free chart one time in four of those.
        const x = this.random();
        const chart = x < 0.6 ? 'top-free' : x < 0.8 ? 'top-paid' : 'top-grossing';
        const genre =
          chart === 'top-free' && this.random() < 0.25 ? CHART_GENRES[this.page() % CHART_GENRES.length] : undefined;
        return { route, chart, country, genre, page: this.page() + 1 };
      }
      case 'suggestions.search': {
        // What a user has typed so far: the first two to five letters of a common word.
        const word = this.listing.terms[this.term()];
        return { route, term: word.slice(0, 2 + Math.floor(this.random() * 4)), country };
      }
    }
  }

  private route(): CatalogQuery['route'] {
    let x = this.random();
    for (const [route, share] of ROUTE_MIX) {
      if (x < share) return route;
      x -= share;
    }
    return 'apps.get';
  }

  private appId(): string {
    const rank = this.app();
    return String(this.listing.apps[rank]?.trackId ?? MISSING_ID_BASE + rank);
  }

  private bundleId(): string {
    return String(this.listing.bundles[this.bundle()].id);
  }
}
