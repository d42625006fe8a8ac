import { REVIEWS_MAX_PAGE, SEARCH_MAX_PAGE } from '@appcat/contracts';

/**
 * Formats and limits of every parameter, in one place: the DTOs enforce them, and the docs, OpenAPI
 * and MCP schemas are generated from them.
 */
export const ParamLimits = {
  termMaxLength: 200,
  /** A numeric App Store id: track, bundle or artist id. */
  numericIdPattern: /^[1-9]\d{0,18}$/,
  /** An app is a numeric track id or a bundle identifier such as com.facebook.Facebook. */
  bundleIdentifierPattern: /^[A-Za-z0-9][A-Za-z0-9._-]{0,154}$/,
  idMaxLength: 155,
  searchMaxPage: SEARCH_MAX_PAGE,
  reviewsMaxPage: REVIEWS_MAX_PAGE,
  /** A BCP 47-style language tag such as en, en-us or zh-hant-tw (Apple accepts `_` too). */
  langPattern: /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8}){0,3}$/,
  langMaxLength: 35,
  sortValues: ['recent', 'helpful'] as const,
} as const;

export const ParamDefaults = {
  country: 'us',
  page: 1,
  sort: 'recent',
} as const;

/** Human descriptions for docs, OpenAPI and MCP. */
export const ParamDescriptions: Record<string, string> = {
  term: `Search text, 1 to ${ParamLimits.termMaxLength} characters.`,
  page: `Page number, a positive integer (search: 1 to ${ParamLimits.searchMaxPage}, 20 results a page; reviews: 1 to ${ParamLimits.reviewsMaxPage}, 50 reviews a page). Default 1.`,
  country: 'Storefront, an ISO 3166-1 alpha-2 country code, case-insensitive. Default us.',
  lang: 'Language tag such as en-us or ja-jp. Default: the storefront language.',
  sort: 'Review order: recent or helpful. Default recent.',
  appId: 'Numeric App Store id (284882215) or bundle identifier (com.facebook.Facebook).',
  bundleId: 'Numeric App Store app-bundle id (1482985563).',
  developerId: 'Numeric App Store developer (artist) id (284882218).',
};
