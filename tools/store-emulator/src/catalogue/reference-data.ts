import type { GenreKey } from './genres.js';
import { ALL_STOREFRONTS_MASK, storefrontMask } from './storefronts.js';
import type { Script } from './vocabulary.js';

/**
 * Ids that exist whatever the seed: the real Facebook/Meta ids the docs and examples use, plus apps
 * with known properties (one storefront only, exactly one review, no reviews) that tests rely on.
 */
export const REFERENCE_IDS = {
  /** Facebook, 500 reviews (10 pages) in every storefront. */
  app: 284882215,
  appBundleId: 'com.facebook.Facebook',
  /** Meta Platforms, Inc., with several apps. */
  developer: 284882218,
  /** Meta's bundle of Facebook, Messenger and Meta Business Suite. */
  bundle: 1482985563,
  /** A chess app sold everywhere, so "chess" always finds something. */
  chessApp: 1200000001,
  /** Exactly one review, in the US storefront only: the feed's single-entry case. */
  singleReviewApp: 1200000002,
  /** Sold in Japan only. */
  japanOnlyApp: 1200000003,
  /** Sold in Brazil only. */
  brazilOnlyApp: 1200000004,
  /** Sold everywhere, never reviewed. */
  unreviewedApp: 1200000005,
} as const;

export interface ReferenceDeveloper {
  id: number;
  name: string;
  slug: string;
  script: Script;
  sellerUrl?: string;
}

export interface ReferenceApp {
  trackId: number;
  name: string;
  bundleId: string;
  developerId: number;
  genreKey: GenreKey;
  secondaryGenreKey?: GenreKey;
  description: string;
  storefronts: number;
  priceTier: number;
  baseRating: number;
  ratingCount: number;
  version: string;
  releaseDate: string;
  contentAdvisoryRating: string;
  reviewVolume: number;
  reviewsByStorefront?: Partial<Record<string, number>>;
}

export const REFERENCE_DEVELOPERS: ReferenceDeveloper[] = [
  {
    id: 284882218,
    name: 'Meta Platforms, Inc.',
    slug: 'meta-platforms-inc',
    script: 'latin',
    sellerUrl: 'https://www.meta.com',
  },
  { id: 299000001, name: 'Royal Chess Club Ltd', slug: 'royal-chess-club-ltd', script: 'latin' },
  { id: 299000002, name: 'Quiet Tools', slug: 'quiet-tools', script: 'latin' },
  { id: 299000003, name: '株式会社のりかえ', slug: '株式会社のりかえ', script: 'japanese' },
  { id: 299000004, name: 'Banco Fácil S.A.', slug: 'banco-fácil-s-a', script: 'latin' },
];

export const REFERENCE_APPS: ReferenceApp[] = [
  {
    trackId: 284882215,
    name: 'Facebook',
    bundleId: 'com.facebook.Facebook',
    developerId: 284882218,
    genreKey: 'social',
    description:
      "Where real connections happen. Whether you're thrifting gear, showing reels to that group who gets it, or sharing laughs over fun images reimagined by AI, Facebook helps you make things happen like no other social network.",
    storefronts: ALL_STOREFRONTS_MASK,
    priceTier: 0,
    baseRating: 4.3,
    ratingCount: 26_000_000,
    version: '460.0',
    releaseDate: '2019-02-05T08:00:00Z',
    contentAdvisoryRating: '12+',
    reviewVolume: 500,
  },
  {
    trackId: 454638411,
    name: 'Messenger',
    bundleId: 'com.facebook.Messenger',
    developerId: 284882218,
    genreKey: 'social',
    description:
      'Be together whenever with our free all-in-one communication app, complete with unlimited text, voice and video calling and group video chat features.',
    storefronts: ALL_STOREFRONTS_MASK,
    priceTier: 0,
    baseRating: 4.6,
    ratingCount: 5_200_000,
    version: '460.1',
    releaseDate: '2011-08-09T07:00:00Z',
    contentAdvisoryRating: '12+',
    reviewVolume: 320,
  },
  {
    trackId: 514643583,
    name: 'Meta Business Suite',
    bundleId: 'com.facebook.PageAdminApp',
    developerId: 284882218,
    genreKey: 'business',
    secondaryGenreKey: 'social',
    description:
      'Meta Business Suite helps you manage your Facebook and Instagram business accounts in one place: posts, messages, insights and ads.',
    storefronts: ALL_STOREFRONTS_MASK,
    priceTier: 0,
    baseRating: 4.7,
    ratingCount: 380_000,
    version: '459.0',
    releaseDate: '2012-05-01T07:00:00Z',
    contentAdvisoryRating: '4+',
    reviewVolume: 140,
  },
  {
    trackId: 6446901002,
    name: 'Threads',
    bundleId: 'com.burbn.barcelona',
    developerId: 284882218,
    genreKey: 'social',
    description:
      "Threads is where communities come together to discuss everything from the topics you care about today to what'll be trending tomorrow.",
    storefronts: ALL_STOREFRONTS_MASK,
    priceTier: 0,
    baseRating: 4.8,
    ratingCount: 1_600_000,
    version: '389.0',
    releaseDate: '2023-07-05T07:00:00Z',
    contentAdvisoryRating: '12+',
    reviewVolume: 260,
  },
  {
    trackId: REFERENCE_IDS.chessApp,
    name: 'Chess Royale: Play Online',
    bundleId: 'com.royalchessclub.chessroyale',
    developerId: 299000001,
    genreKey: 'board',
    description:
      'Play chess online against millions of players or train with puzzles and lessons. Chess for beginners and grandmasters.',
    storefronts: ALL_STOREFRONTS_MASK,
    priceTier: 0,
    baseRating: 4.7,
    ratingCount: 210_000,
    version: '5.12.3',
    releaseDate: '2015-03-12T07:00:00Z',
    contentAdvisoryRating: '4+',
    reviewVolume: 120,
  },
  {
    trackId: REFERENCE_IDS.singleReviewApp,
    name: 'Tiny Notes',
    bundleId: 'com.quiettools.tinynotes',
    developerId: 299000002,
    genreKey: 'productivity',
    description: 'The smallest note-taking app: one screen, one note, no account.',
    storefronts: ALL_STOREFRONTS_MASK,
    priceTier: 1,
    baseRating: 5,
    ratingCount: 3,
    version: '1.0.1',
    releaseDate: '2024-11-02T08:00:00Z',
    contentAdvisoryRating: '4+',
    reviewVolume: 0,
    reviewsByStorefront: { us: 1 },
  },
  {
    trackId: REFERENCE_IDS.japanOnlyApp,
    name: '乗換ナビ東京',
    bundleId: 'jp.norikae.tokyo',
    developerId: 299000003,
    genreKey: 'navigation',
    description: '乗換ナビ東京は、東京の電車とバスの乗換案内アプリです。終電検索や運行情報にも対応しています。',
    storefronts: storefrontMask('jp'),
    priceTier: 0,
    baseRating: 4.4,
    ratingCount: 48_000,
    version: '8.2.0',
    releaseDate: '2014-06-20T07:00:00Z',
    contentAdvisoryRating: '4+',
    reviewVolume: 180,
  },
  {
    trackId: REFERENCE_IDS.brazilOnlyApp,
    name: 'Banco Fácil',
    bundleId: 'br.com.bancofacil.app',
    developerId: 299000004,
    genreKey: 'finance',
    description: 'Sua conta digital sem tarifas: Pix, cartão e investimentos em um só app.',
    storefronts: storefrontMask('br'),
    priceTier: 0,
    baseRating: 4.5,
    ratingCount: 95_000,
    version: '3.40.0',
    releaseDate: '2018-09-10T07:00:00Z',
    contentAdvisoryRating: '4+',
    reviewVolume: 90,
  },
  {
    trackId: REFERENCE_IDS.unreviewedApp,
    name: 'Quiet Timer',
    bundleId: 'com.quiettools.quiettimer',
    developerId: 299000002,
    genreKey: 'utilities',
    description: 'A silent countdown timer that vibrates once.',
    storefronts: ALL_STOREFRONTS_MASK,
    priceTier: 0,
    baseRating: 0,
    ratingCount: 0,
    version: '1.0',
    releaseDate: '2025-01-15T08:00:00Z',
    contentAdvisoryRating: '4+',
    reviewVolume: 0,
  },
];

export const REFERENCE_BUNDLES = [
  {
    id: REFERENCE_IDS.bundle,
    name: 'Meta Essentials',
    developerId: 284882218,
    appIds: [284882215, 454638411, 514643583],
    priceTier: 2,
    description: 'Facebook, Messenger and Meta Business Suite together.',
  },
];
