/**
 * How far the emulator's answers drift from the App Store shapes the catalog was first built on, so
 * tests and the upstream check can watch the catalog notice. The defaults are those shapes; each other
 * value is a shape Apple has served before, serves in 2026 (public reports, see docs/upstream.md), or
 * could serve next.
 */
export interface DriftSettings {
  /**
   * Where store pages carry the web catalogue token: in the module script their `<head>` loads, in the
   * `web-experience-app/config/environment` meta tag (before), in the page's serialized server data,
   * or nowhere a reader would find it (2026: injected at run time only).
   */
  token: 'module-script' | 'meta-tag' | 'serialized-data' | 'nowhere';
  /** Web catalogue search results grouped by type under `results` (today), or under a grouping nobody reads. */
  searchGrouping: 'by-type' | 'unknown';
  /** The reviews feed's first entry: a review (today), or the app itself (older captures). */
  reviewsFirstEntry: 'review' | 'app';
  /**
   * What the customer-reviews feed answers (2026): its entries; the envelope without `entry` always;
   * the same after `feedBurst` feed requests within 60 s; or the empty envelope on the `page=…/id=…`
   * URL form only (the `id=…/page=…` form still answers).
   */
  reviewsFeed: 'entries' | 'empty' | 'empty-after-burst' | 'empty-one-form';
  /** Feed requests within 60 s answered before `empty-after-burst` empties the feed. */
  feedBurst: number;
  /**
   * The same-origin catalogue (`/api/apps/v1/catalog/…`): `strict` refuses a request without
   * `platform=web` (400) or from a client that is not a browser (429), as reported in 2026; `open` answers any.
   */
  sameOrigin: 'strict' | 'open';
  /**
   * What the same-origin catalogue serves: what public code shows it serving (`proven`: one app, its
   * reviews, a developer) or also bundles, search and `?ids=` batches (`all`), which nobody has shown.
   */
  sameOriginScope: 'proven' | 'all';
  /** Store pages carry their serialized server data (reviews, ratings, "You Might Also Like", a bundle's apps), or not. */
  pageData: 'serialized' | 'none';
}

export const TODAYS_SHAPES: Readonly<DriftSettings> = Object.freeze({
  token: 'module-script',
  searchGrouping: 'by-type',
  reviewsFirstEntry: 'review',
  reviewsFeed: 'entries',
  feedBurst: 12,
  sameOrigin: 'strict',
  sameOriginScope: 'all',
  pageData: 'serialized',
});

type Choices = { [K in keyof DriftSettings]: DriftSettings[K] extends string ? readonly DriftSettings[K][] : 'count' };

const CHOICES: Choices = {
  token: ['module-script', 'meta-tag', 'serialized-data', 'nowhere'],
  searchGrouping: ['by-type', 'unknown'],
  reviewsFirstEntry: ['review', 'app'],
  reviewsFeed: ['entries', 'empty', 'empty-after-burst', 'empty-one-form'],
  feedBurst: 'count',
  sameOrigin: ['strict', 'open'],
  sameOriginScope: ['proven', 'all'],
  pageData: ['serialized', 'none'],
};

export class DriftSpecError extends Error {}

/** Validates drift settings received as JSON; fields not given keep their current value. */
export function parseDrift(value: unknown): Partial<DriftSettings> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new DriftSpecError('drift settings are a JSON object');
  const settings: Record<string, unknown> = {};
  for (const [key, choice] of Object.entries(value)) {
    const allowed = (CHOICES as Record<string, readonly string[] | 'count'>)[key];
    if (!allowed) throw new DriftSpecError(`unknown drift field "${key}"`);
    if (allowed === 'count') {
      if (!Number.isInteger(choice) || (choice as number) < 0 || (choice as number) > 100_000)
        throw new DriftSpecError(`${key} is a whole number from 0 to 100000`);
    } else if (typeof choice !== 'string' || !allowed.includes(choice)) {
      throw new DriftSpecError(`${key} is one of ${allowed.join(', ')}`);
    }
    settings[key] = choice;
  }
  return settings as Partial<DriftSettings>;
}
