/**
 * How far the emulator's answers drift from today's App Store, so tests and the upstream check can
 * watch the catalog notice. The defaults are today's shapes; each other value is a shape Apple has
 * served before or could serve next.
 */
export interface DriftSettings {
  /**
   * Where store pages carry the web catalogue token: in the module script their `<head>` loads
   * (today), in the `web-experience-app/config/environment` meta tag (before), or nowhere a reader
   * would find it (moved again).
   */
  token: 'module-script' | 'meta-tag' | 'nowhere';
  /** Web catalogue search results grouped by type under `results` (today), or under a grouping nobody reads. */
  searchGrouping: 'by-type' | 'unknown';
  /** The reviews feed's first entry: a review (today), or the app itself (older captures). */
  reviewsFirstEntry: 'review' | 'app';
}

export const TODAYS_SHAPES: Readonly<DriftSettings> = Object.freeze({
  token: 'module-script',
  searchGrouping: 'by-type',
  reviewsFirstEntry: 'review',
});

const CHOICES: { [K in keyof DriftSettings]: readonly DriftSettings[K][] } = {
  token: ['module-script', 'meta-tag', 'nowhere'],
  searchGrouping: ['by-type', 'unknown'],
  reviewsFirstEntry: ['review', 'app'],
};

export class DriftSpecError extends Error {}

/** Validates drift settings received as JSON; fields not given keep their current value. */
export function parseDrift(value: unknown): Partial<DriftSettings> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new DriftSpecError('drift settings are a JSON object');
  const settings: Record<string, unknown> = {};
  for (const [key, choice] of Object.entries(value)) {
    const allowed = (CHOICES as Record<string, readonly string[]>)[key];
    if (!allowed) throw new DriftSpecError(`unknown drift field "${key}"`);
    if (typeof choice !== 'string' || !allowed.includes(choice))
      throw new DriftSpecError(`${key} is one of ${allowed.join(', ')}`);
    settings[key] = choice;
  }
  return settings as Partial<DriftSettings>;
}
