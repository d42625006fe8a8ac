import { GENRES, type GenreKey } from './genres.js';
import type { App, Bundle, Developer } from './model.js';
import { Random } from './random.js';
import { REFERENCE_APPS, REFERENCE_BUNDLES, REFERENCE_DEVELOPERS } from './reference-data.js';
import { ALL_STOREFRONTS_MASK, STOREFRONTS, storefrontMask } from './storefronts.js';
import { asciiWord, describe, isoDateBetween, releaseNotesFor, slugify } from './text.js';
import {
  ARABIC_COMPANY_PARTS,
  ARABIC_SUFFIXES,
  BUNDLE_WORDS,
  COMPANY_KINDS,
  COMPANY_WORDS,
  CYRILLIC_COMPANY_PARTS,
  CYRILLIC_SUFFIXES,
  EMOJI,
  JAPANESE_COMPANY_PARTS,
  JAPANESE_PREFIXES,
  JAPANESE_SUFFIXES,
  LATIN_ADJECTIVES,
  LATIN_SUFFIXES,
  NOUNS,
  PERSON_FIRST,
  PERSON_LAST,
  type Script,
} from './vocabulary.js';

export const GENERATED_DEVELOPERS = 2500;
export const GENERATED_APPS = 10000;

/** Salts so that developers, apps and bundles draw from independent streams of the same seed. */
const Stream = { Developer: 1, App: 2, Bundle: 3 } as const;

const FIRST_RELEASE = Date.UTC(2009, 6, 1);
const LAST_RELEASE = Date.UTC(2024, 11, 31);
/** "Now" for the generated catalogue; fixed so that output does not depend on the clock. */
export const CATALOGUE_NOW = Date.UTC(2025, 9, 1);

export interface GeneratedCatalogue {
  developers: Developer[];
  apps: App[];
  bundles: Bundle[];
}

export function generateCatalogue(seed: number): GeneratedCatalogue {
  const developers = [...REFERENCE_DEVELOPERS.map((d) => ({ ...d, apps: [] as App[] }))];
  for (let j = 0; j < GENERATED_DEVELOPERS; j++) developers.push(generateDeveloper(seed, j));

  const apps: App[] = [];
  const bundleIds = new Set<string>();
  const developerById = new Map(developers.map((d) => [d.id, d]));
  for (const ref of REFERENCE_APPS) {
    const developer = developerById.get(ref.developerId)!;
    const rng = new Random(seed, Stream.App, ref.trackId);
    const genre = GENRES[ref.genreKey];
    const app: App = {
      index: apps.length,
      trackId: ref.trackId,
      name: ref.name,
      slug: slugify(ref.name),
      bundleId: ref.bundleId,
      developer,
      genreKey: ref.genreKey,
      genre,
      secondaryGenre: ref.secondaryGenreKey ? GENRES[ref.secondaryGenreKey] : undefined,
      description: ref.description,
      releaseNotes: releaseNotesFor(developer.script),
      storefronts: ref.storefronts,
      priceTier: ref.priceTier,
      baseRating: ref.baseRating,
      ratingCount: ref.ratingCount,
      version: ref.version,
      releaseDate: ref.releaseDate,
      currentVersionReleaseDate: isoDateBetween(rng, CATALOGUE_NOW - 20 * 86_400_000, CATALOGUE_NOW),
      fileSizeBytes: Math.floor(10 ** (7.5 + rng.next() * 1.5)),
      minimumOsVersion: '15.0',
      contentAdvisoryRating: ref.contentAdvisoryRating,
      languageCodes: languagesFor(developer.script, rng, ref.trackId === 284882215 ? 30 : 3),
      reviewVolume: ref.reviewVolume,
      reviewsByStorefront: ref.reviewsByStorefront,
      searchText: '',
    };
    apps.push(finish(app, bundleIds));
  }
  const generatedDevelopers = developers.slice(REFERENCE_DEVELOPERS.length);
  for (let i = 0; i < GENERATED_APPS; i++) {
    const rng = new Random(seed, Stream.App, i);
    // The first apps give every developer one; the rest go mostly to a few prolific developers.
    const developer =
      i < generatedDevelopers.length
        ? generatedDevelopers[i]
        : generatedDevelopers[Math.floor(rng.next() ** 2.2 * generatedDevelopers.length)];
    apps.push(finish(generateApp(rng, seed, i, apps.length, developer), bundleIds));
  }
  for (const app of apps) app.developer.apps.push(app);

  return { developers, apps, bundles: generateBundles(seed, developers, apps) };
}

function pickParts(rng: Random, parts: string[][]): string {
  return parts.map((options) => rng.pick(options)).join('');
}

function generateDeveloper(seed: number, j: number): Developer {
  const rng = new Random(seed, Stream.Developer, j);
  const roll = rng.next();
  const script: Script = roll < 0.08 ? 'japanese' : roll < 0.14 ? 'cyrillic' : roll < 0.18 ? 'arabic' : 'latin';
  let name: string;
  if (script === 'japanese') name = pickParts(rng, JAPANESE_COMPANY_PARTS);
  else if (script === 'cyrillic') name = pickParts(rng, CYRILLIC_COMPANY_PARTS);
  else if (script === 'arabic') name = pickParts(rng, ARABIC_COMPANY_PARTS);
  else if (rng.chance(0.35)) name = `${rng.pick(PERSON_FIRST)} ${rng.pick(PERSON_LAST)}`;
  else
    name = `${rng.pick(COMPANY_WORDS)}${rng.chance(0.3) ? ` ${rng.pick(COMPANY_WORDS)}` : ''} ${rng.pick(COMPANY_KINDS)}`;
  const id = 300_000_000 + j * 997 + rng.int(0, 900);
  const slug = slugify(name);
  const sellerUrl =
    script === 'latin' && rng.chance(0.6) ? `https://www.${asciiWord(name) || 'developer'}.example` : undefined;
  return { id, name, slug, script, sellerUrl, apps: [] };
}

function genreKeysFor(script: Script): GenreKey[] {
  return Object.keys(NOUNS[script]) as GenreKey[];
}

function generateName(rng: Random, script: Script, genreKey: GenreKey): string {
  const noun = rng.pick(NOUNS[script][genreKey]!);
  switch (script) {
    case 'japanese':
      return `${rng.pick(JAPANESE_PREFIXES)}${noun}${rng.pick(JAPANESE_SUFFIXES)}`;
    case 'cyrillic':
      return `${noun}${rng.pick(CYRILLIC_SUFFIXES)}`;
    case 'arabic':
      return `${noun}${rng.pick(ARABIC_SUFFIXES)}`;
    default: {
      const roll = rng.next();
      const base =
        roll < 0.5 ? `${rng.pick(LATIN_ADJECTIVES)} ${noun}` : roll < 0.8 ? noun : `${noun} ${rng.pick(COMPANY_WORDS)}`;
      const name = `${base}${rng.pick(LATIN_SUFFIXES)}`;
      if (!rng.chance(0.08)) return name;
      const emoji = EMOJI[genreKey] ?? '✨';
      return rng.chance(0.5) ? `${emoji} ${name}` : `${name} ${emoji}`;
    }
  }
}

const HOME_STOREFRONT: Record<Script, string[]> = {
  latin: ['us', 'gb', 'de', 'fr', 'br', 'ca', 'it', 'es', 'nl', 'se', 'kr', 'au', 'mx', 'in', 'pl', 'tr', 'ch', 'at'],
  japanese: ['jp'],
  cyrillic: ['ru'],
  arabic: STOREFRONTS.map((s) => s.code),
};

function storefrontsFor(rng: Random, script: Script): number {
  const home = storefrontMask(rng.pick(HOME_STOREFRONT[script]));
  const roll = rng.next();
  if (roll < 0.07) return home;
  if (roll < 0.22) return STOREFRONTS.reduce((mask, s) => (rng.chance(0.5) ? mask | (1 << s.bit) : mask), home);
  return ALL_STOREFRONTS_MASK;
}

const LANGUAGES: Record<Script, string> = { latin: 'EN', japanese: 'JA', cyrillic: 'RU', arabic: 'AR' };
const OTHER_LANGUAGES = ['DE', 'FR', 'ES', 'IT', 'PT', 'JA', 'KO', 'ZH', 'RU', 'NL', 'SV', 'TR', 'PL', 'AR'];

function languagesFor(script: Script, rng: Random, extra: number): string[] {
  const own = LANGUAGES[script];
  const more = rng.sample(
    OTHER_LANGUAGES.filter((l) => l !== own),
    rng.int(0, extra),
  );
  return [...new Set([own, 'EN', ...more])].sort();
}

/** Genres an app may list second: any but the game sub-genres (a repeat of the primary is dropped). */
const SECONDARY_GENRES = (Object.keys(GENRES) as GenreKey[]).filter((k) => !('parent' in GENRES[k]));

const ADVISORIES = ['4+', '4+', '4+', '9+', '12+', '12+', '17+'];
const OS_VERSIONS = ['12.0', '13.0', '14.0', '15.0', '15.1', '16.0', '16.4', '17.0'];

function generateApp(rng: Random, seed: number, i: number, index: number, developer: Developer): App {
  const genreKeys = genreKeysFor(developer.script);
  const genreKey = rng.pick(genreKeys);
  const genre = GENRES[genreKey];
  const name = generateName(rng, developer.script, genreKey);
  const releaseMs = Date.parse(isoDateBetween(rng, FIRST_RELEASE, LAST_RELEASE));
  const ratingCount = rng.chance(0.05) ? 0 : Math.floor(10 ** (rng.next() * 6.5));
  const volumeRoll = rng.next();
  const reviewVolume =
    ratingCount === 0 || volumeRoll < 0.15
      ? 0
      : volumeRoll < 0.25
        ? rng.int(1, 5)
        : volumeRoll < 0.75
          ? rng.int(6, 120)
          : rng.int(121, 500);
  return {
    index,
    trackId: 1_100_000_000 + i * 1013 + rng.int(0, 1000),
    name,
    slug: slugify(name),
    bundleId: '',
    developer,
    genreKey,
    genre,
    secondaryGenre: rng.chance(0.25) ? GENRES[rng.pick(SECONDARY_GENRES)] : undefined,
    description: describe(name, genre, developer.script, new Random(seed, Stream.App, i, 1)),
    releaseNotes: releaseNotesFor(developer.script),
    storefronts: storefrontsFor(rng, developer.script),
    priceTier: rng.chance(0.72) ? 0 : rng.pick([1, 1, 1, 2, 2, 3, 4, 5, 6]),
    baseRating: ratingCount === 0 ? 0 : Math.min(5, 1.5 + 3.5 * (1 - rng.next() ** 2)),
    ratingCount,
    version: `${rng.int(1, 12)}.${rng.int(0, 30)}.${rng.int(0, 9)}`,
    releaseDate: new Date(releaseMs).toISOString().replace('.000Z', 'Z'),
    currentVersionReleaseDate: isoDateBetween(rng, releaseMs, CATALOGUE_NOW),
    fileSizeBytes: Math.floor(10 ** (6.7 + rng.next() * 2.6)),
    minimumOsVersion: rng.pick(OS_VERSIONS),
    contentAdvisoryRating: rng.pick(ADVISORIES),
    languageCodes: languagesFor(developer.script, rng, 4),
    reviewVolume,
    searchText: '',
  };
}

/** Fills the derived fields: a unique bundle identifier and the search text. */
function finish(app: App, taken: Set<string>): App {
  if (!app.bundleId) {
    const owner = asciiWord(app.developer.name).slice(0, 20) || `dev${app.developer.id}`;
    const product = asciiWord(app.name).slice(0, 24) || `app${app.index}`;
    let bundleId = `com.${owner}.${product}`;
    if (taken.has(bundleId.toLowerCase())) bundleId = `${bundleId}${app.index}`;
    app.bundleId = bundleId;
  }
  taken.add(app.bundleId.toLowerCase());
  app.searchText = `${app.name}\n${app.developer.name}\n${app.description}`.toLowerCase();
  return app;
}

function bundleName(rng: Random, developer: Developer): string {
  switch (developer.script) {
    case 'japanese':
      return `${developer.name}セット`;
    case 'cyrillic':
      return `Набор ${developer.name}`;
    case 'arabic':
      return `حزمة ${developer.name}`;
    default:
      return `${developer.name.replace(/,? (Inc\.|LLC|GmbH|Ltd|SAS|Ltda\.)$/, '')} ${rng.pick(BUNDLE_WORDS)}`;
  }
}

function makeBundle(
  id: number,
  name: string,
  developer: Developer,
  apps: App[],
  priceTier: number,
  description: string,
): Bundle {
  const storefronts = apps.reduce((mask, app) => mask & app.storefronts, ALL_STOREFRONTS_MASK);
  return {
    id,
    name,
    slug: slugify(name),
    developer,
    apps,
    storefronts,
    priceTier,
    description,
    searchText: `${name}\n${developer.name}\n${description}\n${apps.map((a) => a.name).join('\n')}`.toLowerCase(),
  };
}

function generateBundles(seed: number, developers: Developer[], apps: App[]): Bundle[] {
  const appById = new Map(apps.map((a) => [a.trackId, a]));
  const bundles = REFERENCE_BUNDLES.map((ref) => {
    const developer = developers.find((d) => d.id === ref.developerId)!;
    return makeBundle(
      ref.id,
      ref.name,
      developer,
      ref.appIds.map((id) => appById.get(id)!),
      ref.priceTier,
      ref.description,
    );
  });
  let k = 0;
  for (const developer of developers.slice(REFERENCE_DEVELOPERS.length)) {
    const rng = new Random(seed, Stream.Bundle, developer.id);
    if (developer.apps.length < 2 || !rng.chance(0.35)) continue;
    const members = rng.sample(developer.apps, rng.int(2, Math.min(6, developer.apps.length)));
    const id = 1_400_000_000 + k++ * 1009 + rng.int(0, 1000);
    const description = `${members.length} apps by ${developer.name}: ${members.map((a) => a.name).join(', ')}.`;
    const bundle = makeBundle(id, bundleName(rng, developer), developer, members, rng.int(1, 6), description);
    if (bundle.storefronts !== 0) bundles.push(bundle);
  }
  return bundles;
}
