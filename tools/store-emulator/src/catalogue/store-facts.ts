import type { Catalogue } from './catalogue.js';
import { CATALOGUE_NOW } from './generate.js';
import type { App } from './model.js';
import { Random } from './random.js';
import { soldIn, type Storefront } from './storefronts.js';

/*
 * The store facts the catalogue derives on demand, from the seed and stable keys only: an app's star
 * histogram per storefront, its privacy label, its version history, the top charts of a storefront
 * and the search hints for a prefix. Shapes follow Apple's (see docs/upstream.md); values are invented.
 */

/** Salts of these derived values, distinct from the catalogue's own streams. */
const Salt = { Histogram: 21, Privacy: 22, Versions: 23, Chart: 24 } as const;

export type ChartKind = 'free' | 'paid' | 'grossing';

export const CHART_MAX_ENTRIES = 200;
export const HINTS_MAX = 10;

/**
 * Counts of 1 to 5 stars that add up to the storefront's rating count and average about its rating:
 * a J-shaped base (many fives, some ones) moved towards five or one stars until its mean is the average.
 */
export function ratingHistogram(catalogue: Catalogue, app: App, front: Storefront): number[] {
  const { average, count } = catalogue.rating(app, front);
  if (count === 0) return [0, 0, 0, 0, 0];
  const rng = new Random(catalogue.seed, Salt.Histogram, app.trackId, front.bit);
  const base = [0.12 + rng.next() * 0.1, 0.04, 0.07, 0.17, 0.6].map((w) => w * (0.8 + rng.next() * 0.4));
  const total = base.reduce((a, b) => a + b, 0);
  let shares = base.map((w) => w / total);
  const mean = shares.reduce((sum, p, i) => sum + p * (i + 1), 0);
  const toward = average >= mean ? 4 : 0;
  const t = average >= mean ? (average - mean) / (5 - mean) : (mean - average) / (mean - 1);
  shares = shares.map((p, i) => p * (1 - t) + (i === toward ? t : 0));
  const counts = shares.map((p) => Math.floor(p * count));
  // What flooring left over goes to the star nearest the average, so the counts add up exactly.
  counts[Math.min(4, Math.max(0, Math.round(average) - 1))] += count - counts.reduce((a, b) => a + b, 0);
  return counts;
}

const PRIVACY_TYPES = {
  DATA_USED_TO_TRACK_YOU: {
    privacyType: 'Data Used to Track You',
    description: 'The following data may be used to track you across apps and websites owned by other companies:',
  },
  DATA_LINKED_TO_YOU: {
    privacyType: 'Data Linked to You',
    description: 'The following data may be collected and linked to your identity:',
  },
  DATA_NOT_LINKED_TO_YOU: {
    privacyType: 'Data Not Linked to You',
    description: 'The following data may be collected but it is not linked to your identity:',
  },
  DATA_NOT_COLLECTED: {
    privacyType: 'Data Not Collected',
    description: 'The developer does not collect any data from this app.',
  },
} as const;

/** Apple's data categories and the data types each lists. */
const DATA_CATEGORIES: [string, string, string[]][] = [
  ['CONTACT_INFO', 'Contact Info', ['Name', 'Email Address', 'Phone Number', 'Physical Address']],
  ['LOCATION', 'Location', ['Precise Location', 'Coarse Location']],
  ['IDENTIFIERS', 'Identifiers', ['User ID', 'Device ID']],
  ['USAGE_DATA', 'Usage Data', ['Product Interaction', 'Advertising Data']],
  ['DIAGNOSTICS', 'Diagnostics', ['Crash Data', 'Performance Data']],
  ['PURCHASES', 'Purchases', ['Purchase History']],
  ['USER_CONTENT', 'User Content', ['Photos or Videos', 'Customer Support']],
  ['SEARCH_HISTORY', 'Search History', ['Search History']],
  ['CONTACTS', 'Contacts', ['Contacts']],
];

const PURPOSES: [string, string][] = [
  ['THIRD_PARTY_ADVERTISING', 'Third-Party Advertising'],
  ['DEVELOPERS_ADVERTISING', "Developer's Advertising or Marketing"],
  ['ANALYTICS', 'Analytics'],
  ['PRODUCT_PERSONALIZATION', 'Product Personalization'],
  ['APP_FUNCTIONALITY', 'App Functionality'],
];

type DataCategory = { dataCategory: string; identifier: string; dataTypes: string[] };

/**
 * An app's privacy label in the web catalogue's `privacyDetails` shape: "track you" lists its data
 * categories; "linked" and "not linked" list them per purpose; "not collected" lists nothing.
 */
export function privacyDetails(catalogue: Catalogue, app: App): Record<string, unknown> {
  const rng = new Random(catalogue.seed, Salt.Privacy, app.trackId);
  const categories = (n: number): DataCategory[] =>
    rng.sample(DATA_CATEGORIES, n).map(([identifier, dataCategory, types]) => ({
      dataCategory,
      identifier,
      dataTypes: types.slice(0, 1 + rng.int(0, types.length - 1)),
    }));
  const entry = (identifier: keyof typeof PRIVACY_TYPES, dataCategories: DataCategory[], purposes: unknown[]) => ({
    ...PRIVACY_TYPES[identifier],
    identifier,
    dataCategories,
    purposes,
  });
  const byPurpose = () =>
    rng.sample(PURPOSES, rng.int(1, 3)).map(([identifier, purpose]) => ({
      purpose,
      identifier,
      dataCategories: categories(rng.int(1, 4)),
    }));
  // The reference app (Facebook) declares all three kinds of collected data, as its real label does.
  const collects = app.trackId === 284882215 || rng.chance(0.8);
  const privacyTypes = !collects
    ? [entry('DATA_NOT_COLLECTED', [], [])]
    : [
        ...(app.trackId === 284882215 || rng.chance(0.5) ? [entry('DATA_USED_TO_TRACK_YOU', categories(3), [])] : []),
        entry('DATA_LINKED_TO_YOU', [], byPurpose()),
        ...(app.trackId === 284882215 || rng.chance(0.6) ? [entry('DATA_NOT_LINKED_TO_YOU', [], byPurpose())] : []),
      ];
  return { managePrivacyChoicesUrl: null, privacyTypes };
}

export interface VersionEntry {
  versionDisplay: string;
  releaseNotes: string;
  releaseDate: string;
  releaseTimestamp: string;
}

/** Every version from the first to the current one, newest first, as `extend=versionHistory` lists them. */
export function versionHistory(catalogue: Catalogue, app: App): VersionEntry[] {
  const rng = new Random(catalogue.seed, Salt.Versions, app.trackId);
  const first = Date.parse(app.releaseDate);
  const current = Date.parse(app.currentVersionReleaseDate);
  const span = Math.max(0, current - first);
  const count = span < 86_400_000 ? 1 : Math.min(40, 2 + Math.floor(span / (45 * 86_400_000)) + rng.int(0, 3));
  const [major, minor, patch] = app.version.split('.').map(Number);
  const entries: VersionEntry[] = [];
  for (let i = 0; i < count; i++) {
    const at = i === 0 ? current : i === count - 1 ? first : current - Math.round((span * i) / (count - 1));
    const version =
      i === 0
        ? app.version
        : `${Math.max(1, major - Math.floor(i / 6))}.${Math.max(0, (minor ?? 0) - (i % 6))}.${(patch ?? 0) + (i % 3)}`;
    const timestamp = new Date(Math.min(at, CATALOGUE_NOW)).toISOString().replace('.000Z', 'Z');
    entries.push({
      versionDisplay: version,
      releaseNotes: i === 0 ? app.releaseNotes : rng.pick(OLDER_NOTES),
      releaseDate: timestamp.slice(0, 10),
      releaseTimestamp: timestamp,
    });
  }
  return entries;
}

const OLDER_NOTES = [
  'Bug fixes and performance improvements.',
  'We fixed a crash some of you saw when opening the app.',
  'New: dark mode. Thanks for your feedback!',
  'Improved stability and faster start-up.',
  'Small design updates and accessibility fixes.',
];

/**
 * A storefront's top chart, at most 200 apps: free or paid apps by how many ratings they have this
 * week (their rating count, jittered per storefront), grossing by that times the price with a share
 * for in-app purchases. A genre keeps apps whose genre, parent genre or second genre is that one.
 */
export function topChart(catalogue: Catalogue, kind: ChartKind, front: Storefront, genreId?: number): App[] {
  const ranked: { app: App; score: number }[] = [];
  for (const app of catalogue.apps) {
    if (!soldIn(app.storefronts, front)) continue;
    if (kind === 'free' && app.priceTier !== 0) continue;
    if (kind === 'paid' && app.priceTier === 0) continue;
    if (genreId !== undefined && ![app.genre.id, app.genre.parent?.id, app.secondaryGenre?.id].includes(genreId))
      continue;
    const jitter = 0.5 + new Random(catalogue.seed, Salt.Chart, app.trackId, front.bit).next();
    const { count } = catalogue.rating(app, front);
    const price = Math.max(catalogue.price(app.priceTier, front), 0.3 * front.tiers[1]);
    ranked.push({ app, score: (count + 1) * jitter * (kind === 'grossing' ? price : 1) });
  }
  ranked.sort((a, b) => b.score - a.score || a.app.index - b.app.index);
  return ranked.slice(0, CHART_MAX_ENTRIES).map((r) => r.app);
}

export interface Hint {
  term: string;
  priority: number;
}

/**
 * What the store suggests for a prefix: app names (and their first two words) that start with it,
 * or have a word that does, most rated first, ten at most. A single letter that starts nothing
 * still gets the names containing it, as the real store always suggests something for one letter.
 */
export function searchHints(catalogue: Catalogue, prefix: string, front: Storefront): Hint[] {
  const typed = prefix.normalize('NFC').trim().toLowerCase().replace(/\s+/g, ' ');
  if (typed === '') return [];
  const scores = new Map<string, number>();
  const offer = (term: string, weight: number) => scores.set(term, Math.max(scores.get(term) ?? 0, weight));
  const considered: { app: App; count: number }[] = [];
  for (const app of catalogue.apps) {
    if (soldIn(app.storefronts, front)) considered.push({ app, count: catalogue.rating(app, front).count });
  }
  for (const { app, count } of considered) {
    const name = app.name.toLowerCase();
    const words = name.split(/\s+/);
    if (name.startsWith(typed)) {
      offer(name, count + 1);
      if (words.length > 2) offer(words.slice(0, 2).join(' '), (count + 1) * 1.1);
    } else if (words.some((w) => w.startsWith(typed))) offer(name, (count + 1) * 0.5);
  }
  if (scores.size === 0 && [...typed].length === 1)
    for (const { app, count } of considered)
      if (app.name.toLowerCase().includes(typed)) offer(app.name.toLowerCase(), count + 1);
  const top = [...scores.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, HINTS_MAX);
  const best = top[0]?.[1] ?? 1;
  // Apple's priority runs from 0 for rare searches to 10000 for the most searched.
  return top.map(([term, score]) => ({ term, priority: Math.round((10_000 * Math.log1p(score)) / Math.log1p(best)) }));
}
