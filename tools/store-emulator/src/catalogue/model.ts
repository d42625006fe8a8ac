import type { Genre, GenreKey } from './genres.js';
import type { Script } from './vocabulary.js';

/** An App Store developer ("artist" in iTunes terms). */
export interface Developer {
  id: number;
  name: string;
  /** URL slug as on apps.apple.com/{cc}/developer/{slug}/id{id}. */
  slug: string;
  script: Script;
  sellerUrl?: string;
  apps: App[];
}

export interface App {
  /** Position in the catalogue; keys every lazily derived value (reviews, similar apps). */
  index: number;
  trackId: number;
  name: string;
  slug: string;
  bundleId: string;
  developer: Developer;
  genreKey: GenreKey;
  genre: Genre;
  secondaryGenre?: Genre;
  description: string;
  releaseNotes: string;
  /** Bitmask over STOREFRONTS: where the app is sold. */
  storefronts: number;
  /** Apple price tier 0..6 (0 = free). */
  priceTier: number;
  /** Rating around which every storefront's average varies, 1..5. */
  baseRating: number;
  /** Ratings in the US storefront; other storefronts scale it. */
  ratingCount: number;
  version: string;
  releaseDate: string;
  currentVersionReleaseDate: string;
  fileSizeBytes: number;
  minimumOsVersion: string;
  contentAdvisoryRating: string;
  languageCodes: string[];
  /** Reviews the feed holds per storefront (0..500) unless overridden. */
  reviewVolume: number;
  /** Per-storefront override of reviewVolume, for the reference apps. */
  reviewsByStorefront?: Partial<Record<string, number>>;
  /** Lower-cased name, developer and description, matched by search. */
  searchText: string;
}

/** An app bundle: several apps of one developer sold together (web catalogue only). */
export interface Bundle {
  id: number;
  name: string;
  slug: string;
  developer: Developer;
  apps: App[];
  storefronts: number;
  priceTier: number;
  description: string;
  searchText: string;
}
