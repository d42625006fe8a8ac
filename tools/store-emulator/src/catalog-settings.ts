/**
 * The catalog settings that lift its per-host rate limits (0 a minute: off), every upstream it
 * throttles included. The catalog's defaults are sized for Apple and Google; the emulator does not
 * throttle, so whatever points a catalog at it (`npm start`, the bench, the chaos suite) sets these.
 */
export const CATALOG_RATE_LIMITS_LIFTED: Readonly<Record<string, string>> = {
  ITUNES_RATE_PER_MIN: '0',
  APPLE_WEB_RATE_PER_MIN: '0',
  APPLE_AMP_API_RATE_PER_MIN: '0',
  APPLE_CATALOGUE_RATE_PER_MIN: '0',
  APPLE_MARKETING_RSS_RATE_PER_MIN: '0',
  APPLE_SEARCH_HINTS_RATE_PER_MIN: '0',
  PLAY_RATE_PER_MIN: '0',
};
