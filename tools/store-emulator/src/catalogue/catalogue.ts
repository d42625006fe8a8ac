import { generateCatalogue } from './generate.js';
import type { App, Bundle, Developer } from './model.js';
import { Random } from './random.js';
import { soldIn, type Storefront } from './storefronts.js';

/** Salts for lazily derived values, distinct from the generator's streams. */
const Derived = { Rating: 11, Reviews: 12, Similar: 13 } as const;

export const MAX_REVIEWS = 500;
/** Ratings in a storefront from which an app always has written reviews there. */
export const REVIEWED_AT_RATINGS = 1000;

export interface StorefrontRating {
  average: number;
  count: number;
}

/**
 * The generated catalogue with its indexes and everything that varies per storefront. Per-storefront
 * values (ratings, review counts, similar apps) are derived on demand from the seed, so start-up only
 * builds the base records.
 */
export class Catalogue {
  readonly developers: Developer[];
  readonly apps: App[];
  readonly bundles: Bundle[];
  private readonly appsById = new Map<number, App>();
  private readonly appsByBundleId = new Map<string, App>();
  private readonly developersById = new Map<number, Developer>();
  private readonly bundlesById = new Map<number, Bundle>();
  private readonly appsByGenre = new Map<string, App[]>();
  private readonly similarCache = new Map<number, App[]>();

  constructor(readonly seed: number) {
    const { developers, apps, bundles } = generateCatalogue(seed);
    this.developers = developers;
    this.apps = apps;
    this.bundles = bundles;
    for (const app of apps) {
      this.appsById.set(app.trackId, app);
      this.appsByBundleId.set(app.bundleId.toLowerCase(), app);
      const sameGenre = this.appsByGenre.get(app.genreKey) ?? [];
      sameGenre.push(app);
      this.appsByGenre.set(app.genreKey, sameGenre);
    }
    for (const developer of developers) this.developersById.set(developer.id, developer);
    for (const bundle of bundles) this.bundlesById.set(bundle.id, bundle);
  }

  app(trackId: number, front: Storefront): App | undefined {
    const app = this.appsById.get(trackId);
    return app && soldIn(app.storefronts, front) ? app : undefined;
  }

  appByBundleId(bundleId: string, front: Storefront): App | undefined {
    const app = this.appsByBundleId.get(bundleId.toLowerCase());
    return app && soldIn(app.storefronts, front) ? app : undefined;
  }

  /** A developer is listed in a storefront where it sells at least one app. */
  developer(artistId: number, front: Storefront): Developer | undefined {
    const developer = this.developersById.get(artistId);
    return developer && developer.apps.some((a) => soldIn(a.storefronts, front)) ? developer : undefined;
  }

  bundle(id: number, front: Storefront): Bundle | undefined {
    const bundle = this.bundlesById.get(id);
    return bundle && soldIn(bundle.storefronts, front) ? bundle : undefined;
  }

  /**
   * Apps whose name, developer or description contain every word of the term, case-insensitively;
   * name matches first, then by number of ratings, as the store ranks popular apps higher.
   */
  searchApps(term: string, front: Storefront): App[] {
    const words = term.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length === 0) return [];
    const phrase = words.join(' ');
    const ranked: { app: App; rank: number }[] = [];
    for (const app of this.apps) {
      if (!soldIn(app.storefronts, front) || !words.every((w) => app.searchText.includes(w))) continue;
      const name = app.name.toLowerCase();
      ranked.push({ app, rank: name.includes(phrase) ? 0 : words.every((w) => name.includes(w)) ? 1 : 2 });
    }
    ranked.sort((a, b) => a.rank - b.rank || b.app.ratingCount - a.app.ratingCount || a.app.index - b.app.index);
    return ranked.map((r) => r.app);
  }

  searchBundles(term: string, front: Storefront): Bundle[] {
    const words = term.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length === 0) return [];
    return this.bundles.filter((b) => soldIn(b.storefronts, front) && words.every((w) => b.searchText.includes(w)));
  }

  rating(app: App, front: Storefront): StorefrontRating {
    if (app.ratingCount === 0) return { average: 0, count: 0 };
    const rng = new Random(this.seed, Derived.Rating, app.trackId, front.bit);
    const count = Math.max(1, Math.round(app.ratingCount * front.marketWeight * (0.6 + rng.next() * 0.8)));
    const average = Math.min(5, Math.max(1, app.baseRating + (rng.next() - 0.5) * 0.6));
    return { average: Math.round(average * 100_000) / 100_000, count };
  }

  price(tier: number, front: Storefront): number {
    return front.tiers[tier];
  }

  /**
   * Reviews the feed holds for the app there. An app rated by at least {@link REVIEWED_AT_RATINGS}
   * people in a storefront has written reviews there, as on the real store (the catalog relies on it
   * to tell an empty feed that lies from one that does not).
   */
  reviewCount(app: App, front: Storefront): number {
    if (!soldIn(app.storefronts, front)) return 0;
    if (app.reviewsByStorefront) return app.reviewsByStorefront[front.code] ?? 0;
    let count = app.reviewVolume;
    if (app.reviewVolume < MAX_REVIEWS && front.code !== 'us') {
      const rng = new Random(this.seed, Derived.Reviews, app.trackId, front.bit);
      count = Math.min(MAX_REVIEWS, Math.round(app.reviewVolume * (0.3 + rng.next() * 0.9)));
    }
    return count > 0 || this.rating(app, front).count < REVIEWED_AT_RATINGS ? count : 1 + (app.trackId % 20);
  }

  /** "Customers also bought": mostly apps of the same genre, a few others, none of the app itself. */
  similar(app: App, front: Storefront): App[] {
    let picks = this.similarCache.get(app.trackId);
    if (!picks) {
      const rng = new Random(this.seed, Derived.Similar, app.trackId);
      const sameGenre = (this.appsByGenre.get(app.genreKey) ?? []).filter((a) => a !== app);
      const others = rng.sample(this.apps, 8).filter((a) => a !== app && a.genreKey !== app.genreKey);
      picks = [...rng.sample(sameGenre, 16), ...others.slice(0, 3)];
      this.similarCache.set(app.trackId, picks);
    }
    return picks.filter((a) => soldIn(a.storefronts, front)).slice(0, 15);
  }
}
