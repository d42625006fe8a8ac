import {
  CHART_KINDS,
  CHART_MAX_PAGE,
  CHART_PAGE_SIZE,
  REVIEWS_MAX_PAGE,
  REVIEWS_PAGE_SIZE,
  SEARCH_MAX_PAGE,
  SEARCH_PAGE_SIZE,
} from '@appcat/contracts';
import { CHART_GENRE_IDS } from './genres.js';
import { ISO_COUNTRY_CODES } from './countries.js';

/*
 * The numbers, patterns, defaults and words the DTOs' decorators are written with (dtos.ts). The DTOs
 * are the one source of every parameter rule: validation runs them, and every document's JSON Schema
 * is generated from their metadata (param-schemas.ts). Nothing else restates a rule; the route table
 * only applies the defaults.
 */

/** Digits of a numeric App Store id (track, bundle or artist id). */
const NUMERIC_ID_MAX_DIGITS = 19;
/** Characters of an app id: a numeric id or a bundle identifier. */
const ID_MAX_LENGTH = 155;
/** Digits of a numeric Google Play developer id (19 today); more than a JavaScript number holds exactly. */
const PLAY_NUMERIC_ID_MAX_DIGITS = 20;
/** Printable text: no C0 control character or DEL. */
const PRINTABLE = '[^\\x00-\\x1f\\x7f]';
const PRINTABLE_NOT_SPACE = '[^\\s\\x00-\\x1f\\x7f]';

/** Formats and limits of the parameters. */
export const ParamLimits = {
  termMaxLength: 200,
  numericIdMaxDigits: NUMERIC_ID_MAX_DIGITS,
  /** A numeric App Store id: track, bundle or artist id. */
  numericIdPattern: new RegExp(`^[1-9]\\d{0,${NUMERIC_ID_MAX_DIGITS - 1}}$`),
  /** An app is a numeric track id or a bundle identifier such as com.facebook.Facebook. */
  bundleIdentifierPattern: new RegExp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,${ID_MAX_LENGTH - 1}}$`),
  idMaxLength: ID_MAX_LENGTH,
  /** Pages are counted from 1. */
  firstPage: 1,
  searchMaxPage: SEARCH_MAX_PAGE,
  reviewsMaxPage: REVIEWS_MAX_PAGE,
  /** A BCP 47-style language tag such as en, en-us or zh-hant-tw (Apple accepts `_` too). */
  langPattern: /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8}){0,3}$/,
  langMaxLength: 35,
  sortValues: ['recent', 'helpful'] as const,
  playNumericIdMaxDigits: PLAY_NUMERIC_ID_MAX_DIGITS,
  /**
   * Google Play's developer pages: `/store/apps/dev?id=<digits>` or `/store/apps/developer?id=<name>`.
   * Digits only (no leading zero) is an id; anything else printable, not all digits and without
   * space at either end, is a name.
   */
  playDeveloperIdPattern: new RegExp(
    `^(?:[1-9]\\d{0,${PLAY_NUMERIC_ID_MAX_DIGITS - 1}}|(?!\\d+$)${PRINTABLE_NOT_SPACE}(?:${PRINTABLE}*${PRINTABLE_NOT_SPACE})?)$`,
  ),
  playDeveloperNameMaxLength: 100,
  /** An Android package name: two or more dot-separated Java identifiers (com.mojang.minecraftpe). */
  playPackagePattern: /^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)+$/,
  playPackageMaxLength: 150,
  chartMaxPage: CHART_MAX_PAGE,
  chartValues: CHART_KINDS,
  genreValues: CHART_GENRE_IDS,
} as const;

/** What an optional parameter left out means; `toCatalogQuery` applies them. */
export const ParamDefaults = {
  country: 'us',
  page: ParamLimits.firstPage,
  sort: 'recent',
} as const;

/** Human descriptions for docs, OpenAPI, MCP and the bazaar, one per DTO property. */
export const ParamDescriptions = {
  term: `Search text, 1 to ${ParamLimits.termMaxLength} characters.`,
  searchPage: `Page number from ${ParamLimits.firstPage} to ${ParamLimits.searchMaxPage} (${SEARCH_PAGE_SIZE} results a page). Default ${ParamDefaults.page}.`,
  reviewsPage: `Page number from ${ParamLimits.firstPage} to ${ParamLimits.reviewsMaxPage} (${REVIEWS_PAGE_SIZE} reviews a page). Default ${ParamDefaults.page}.`,
  country:
    `Storefront, an ISO 3166-1 alpha-2 country code, case-insensitive. Default ${ParamDefaults.country}. ` +
    `One of the ${ISO_COUNTRY_CODES.size} assigned codes.`,
  lang: 'Language tag such as en-us or ja-jp. Default: the storefront language.',
  sort: `Review order: ${ParamLimits.sortValues.join(' or ')}. Default ${ParamDefaults.sort}.`,
  appId: 'Numeric App Store id (284882215) or bundle identifier (com.facebook.Facebook).',
  bundleId: 'Numeric App Store app-bundle id (1482985563).',
  developerId: 'Numeric App Store developer (artist) id (284882218).',
  playAppId: 'Google Play app: its package name (com.mojang.minecraftpe).',
  playDeveloperId:
    'Google Play developer: the numeric id of its page (5700313618786177705, up to 20 digits, kept as text) ' +
    'or its name as its pages write it (Mojang, Google LLC), URL-encoded in the path.',
  chart: `Which top chart: ${CHART_KINDS.join(', ')}.`,
  chartPage: `Page number from ${ParamLimits.firstPage} to ${CHART_MAX_PAGE} (${CHART_PAGE_SIZE} apps a page, ranks ${CHART_PAGE_SIZE * (CHART_MAX_PAGE - 1) + 1}-${CHART_PAGE_SIZE * CHART_MAX_PAGE} on the last). Default ${ParamDefaults.page}.`,
  genre: 'App Store genre id (6014 Games, 7012 Puzzle games, 6005 Social Networking…). Default: every genre.',
  prefix: `What the user has typed so far, 1 to ${ParamLimits.termMaxLength} characters.`,
} as const;
