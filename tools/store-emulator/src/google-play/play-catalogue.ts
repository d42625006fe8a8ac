import { hash, Random } from '../catalogue/random.js';
import { COMPANY_KINDS, COMPANY_WORDS, LATIN_ADJECTIVES, NOUNS } from '../catalogue/vocabulary.js';

/** One app as Google Play lists it on its developer's page. */
export interface PlayApp {
  /** Package name. */
  appId: string;
  title: string;
  summary: string;
  icon: string;
  score: number;
  /** 0 for a free app; otherwise in micros of the storefront's currency, priced in US dollars. */
  priceUsdMicros: number;
  /** The countries it is sold in; null: everywhere. */
  countries: readonly string[] | null;
  /** Written reviews; 0 for an app nobody has rated yet (its page shows no rating, and nothing similar). */
  reviewCount: number;
}

/** One review as Google Play keeps it. */
export interface PlayReview {
  id: string;
  userName: string;
  userImage: string;
  score: number;
  text: string;
  /** When it was written, in seconds since the epoch. */
  seconds: number;
  thumbsUp: number;
  version: string | null;
  reply: { text: string; seconds: number } | null;
}

export interface PlayDeveloper {
  /** The numeric id of `/store/apps/dev?id=` (19 digits, kept as text). */
  id: string;
  /** The name of `/store/apps/developer?id=`, as its pages write it. */
  name: string;
  apps: readonly PlayApp[];
}

/** Ids that exist whatever the seed: the numeric developer of the issue's example, and a few by name. */
export const PLAY_REFERENCE = {
  /** Google LLC: 135 apps, so its page and two continuations (10 + 100 + 25). */
  googleLlc: { id: '5700313618786177705', name: 'Google LLC', apps: 135 },
  /** Mojang: 3 apps, on one page; the first is Minecraft (`minecraft`), paid (USD 6.99). */
  mojang: { id: '4772240228547998649', name: 'Mojang', apps: 3 },
  /** 180 reviews: three pages of 50 and one of 30. */
  minecraft: { appId: 'com.mojang.minecraftpe', title: 'Minecraft: Dream it, Build it!', reviews: 180 },
  /** Mojang's third app, not rated yet: no reviews, no rating on its page, no similar apps linked. */
  unrated: { appId: 'com.mojang.minecraftedu_preview', title: 'Minecraft Education Preview' },
  /** Sold in jp only: its page elsewhere is a 404. */
  japanOnly: { id: '6543210987654321098', name: '株式会社ポケット', apps: 4 },
} as const;

const DEVELOPERS = 400;

/** A review id shaped as Google's (a UUID), from the app and the review's index. */
function reviewId(key: number, index: number): string {
  const hex = [1, 2, 3, 4].map((part) => hash(key, index, part).toString(16).padStart(8, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function numericId(seed: number, index: number): string {
  const wide = (BigInt(hash(seed, index, 1)) << 32n) | BigInt(hash(seed, index, 2));
  return (4_000_000_000_000_000_000n + (wide % 5_000_000_000_000_000_000n)).toString();
}

function packageWord(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '') || 'app';
}

/** `countries` undefined: each app sold everywhere or, now and then, in one country only. */
function makeApps(seed: number, devIndex: number, name: string, count: number, countries?: string[] | null): PlayApp[] {
  const rng = new Random(seed, devIndex, 7);
  const company = packageWord(name.split(' ')[0]);
  const nouns = Object.values(NOUNS.latin).flat();
  const apps: PlayApp[] = [];
  for (let i = 0; i < count; i++) {
    const title = `${rng.pick(LATIN_ADJECTIVES)} ${rng.pick(nouns)}${i > nouns.length ? ` ${i}` : ''}`;
    const restricted =
      countries !== undefined ? countries : rng.chance(0.07) ? [rng.pick(['us', 'gb', 'de', 'jp', 'br'])] : null;
    apps.push({
      appId: `com.${company}.${packageWord(title)}${i}`,
      title,
      summary: `${title} by ${name}: ${rng.pick(['simple', 'fast', 'offline', 'beautiful', 'private'])} and free of clutter.`,
      icon: `https://play-lh.googleusercontent.com/emulator-${hash(seed, devIndex, i).toString(36)}`,
      score: Math.round((2.5 + rng.next() * 2.5) * 1_000_000) / 1_000_000,
      priceUsdMicros: countries === undefined && rng.chance(0.1) ? rng.pick([990_000, 1_990_000, 4_990_000]) : 0,
      countries: restricted,
      reviewCount: rng.int(5, 240),
    });
  }
  return apps;
}

/** Google Play's developers and apps, generated from the seed (nothing stored). */
export class PlayCatalogue {
  readonly developers: readonly PlayDeveloper[];
  private readonly byId = new Map<string, PlayDeveloper>();
  private readonly byName = new Map<string, PlayDeveloper>();
  private readonly byApp = new Map<string, { app: PlayApp; developer: PlayDeveloper }>();

  constructor(private readonly seed: number) {
    const developers: PlayDeveloper[] = [];
    const reference = [PLAY_REFERENCE.googleLlc, PLAY_REFERENCE.mojang, PLAY_REFERENCE.japanOnly];
    reference.forEach((r, i) => {
      const apps = makeApps(seed, -1 - i, r.name, r.apps, r === PLAY_REFERENCE.japanOnly ? ['jp'] : null);
      if (r === PLAY_REFERENCE.mojang) {
        const { appId, title, reviews } = PLAY_REFERENCE.minecraft;
        Object.assign(apps[0], { appId, title, priceUsdMicros: 6_990_000, reviewCount: reviews });
        Object.assign(apps[2], { ...PLAY_REFERENCE.unrated, reviewCount: 0 });
      }
      developers.push({ id: r.id, name: r.name, apps });
    });
    const rng = new Random(seed, 404);
    for (let i = 0; i < DEVELOPERS; i++) {
      const name = `${rng.pick(COMPANY_WORDS)} ${rng.pick(COMPANY_WORDS)} ${rng.pick(COMPANY_KINDS)}`.trim();
      if (developers.some((d) => d.name === name)) continue;
      const count = Math.max(1, Math.floor(60 / (1 + rng.int(0, 30))));
      developers.push({ id: numericId(seed, i), name, apps: makeApps(seed, i, name, count, null) });
    }
    this.developers = developers;
    for (const developer of developers) {
      this.byId.set(developer.id, developer);
      this.byName.set(developer.name, developer);
      for (const app of developer.apps) this.byApp.set(app.appId, { app, developer });
    }
  }

  developer(id: string, by: 'id' | 'name'): PlayDeveloper | undefined {
    return (by === 'id' ? this.byId : this.byName).get(id);
  }

  /** An app by package name, with its developer, if it is sold in `country`. */
  app(appId: string, country: string): { app: PlayApp; developer: PlayDeveloper } | undefined {
    const found = this.byApp.get(appId);
    return found && (found.app.countries === null || found.app.countries.includes(country)) ? found : undefined;
  }

  /** Apps sold in `country` whose title holds every word of `term`, best rated first. */
  search(term: string, country: string): { app: PlayApp; developer: PlayDeveloper }[] {
    const words = term.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length === 0) return [];
    return [...this.byApp.values()]
      .filter(({ app }) => app.countries === null || app.countries.includes(country))
      .filter(({ app }) => words.every((word) => app.title.toLowerCase().includes(word)))
      .sort((a, b) => b.app.score - a.app.score || a.app.appId.localeCompare(b.app.appId));
  }

  /** The app's reviews, newest first ("recent") or most thumbs up first ("helpful"). */
  reviews(app: PlayApp, order: 'recent' | 'helpful'): PlayReview[] {
    const key = hash(...[...app.appId].map((c) => c.charCodeAt(0)));
    const rng = new Random(this.seed, key, 31);
    const reviews: PlayReview[] = [];
    // Written over the months before 2026-07-01, newest first.
    let seconds = 1_782_864_000;
    for (let i = 0; i < app.reviewCount; i++) {
      seconds -= rng.int(600, 86_400);
      const score = rng.int(1, 5);
      const name = `${rng.pick(COMPANY_WORDS)} ${rng.pick(LATIN_ADJECTIVES)}`;
      reviews.push({
        id: reviewId(key, i),
        userName: name,
        userImage: `https://play-lh.googleusercontent.com/a/emulator-${hash(key, i).toString(36)}`,
        score,
        text: `${score >= 4 ? 'Love' : score === 3 ? 'Fine with' : 'Disappointed by'} ${app.title}: ${rng.pick(['works offline', 'fast', 'too many ads', 'great updates', 'crashes sometimes'])}.`,
        seconds,
        thumbsUp: rng.chance(0.6) ? 0 : rng.int(1, 400),
        version: rng.chance(0.2) ? null : `${rng.int(1, 12)}.${rng.int(0, 40)}.${rng.int(0, 9)}`,
        reply:
          score <= 2 && rng.chance(0.5)
            ? { text: `Thanks, ${name}. We are looking into it.`, seconds: seconds + 3600 }
            : null,
      });
    }
    return order === 'recent' ? reviews : [...reviews].sort((a, b) => b.thumbsUp - a.thumbsUp || b.seconds - a.seconds);
  }

  /** The apps Google Play would show as similar to `app` in `country` (50, as its cluster pages list); none for an unrated app. */
  similar(app: PlayApp, country: string): { app: PlayApp; developer: PlayDeveloper }[] {
    if (app.reviewCount === 0) return [];
    const rng = new Random(this.seed, hash(...[...app.appId].map((c) => c.charCodeAt(0))), 37);
    const others = [...this.byApp.values()].filter(
      (other) =>
        other.app.appId !== app.appId && (other.app.countries === null || other.app.countries.includes(country)),
    );
    return rng.sample(others, 50);
  }

  /** The developer's apps sold in `country`, in the order its page lists them. */
  appsIn(developer: PlayDeveloper, country: string): PlayApp[] {
    return developer.apps.filter((app) => app.countries === null || app.countries.includes(country));
  }
}
