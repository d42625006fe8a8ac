import { API_KEY_HASH_PATTERN } from './api-key.js';
import type { CatalogQuery, CatalogRequest } from './catalog.js';
import { CHART_KINDS, CHART_MAX_PAGE, REVIEWS_MAX_PAGE, SEARCH_MAX_PAGE } from './catalog.js';
import { REQUEST_ID_PATTERN } from './headers.js';
import { MAX_TOPUP_MICROS } from './money.js';
import { integer, micros, object, oneOf, optional, parseWire, text, variants, type WireSchema } from './wire-schema.js';

/*
 * Each subject's request as its handler reads it (see wire-schema.ts). The schemas check the shape the
 * wire promises: fields, types and their bounds. The parameter rules themselves (what a term or an app
 * id may be) are the gateway's, in libs/routes, and are not restated here.
 */

const requestId = optional(text({ maxLength: 128, pattern: REQUEST_ID_PATTERN, rule: 'must be a request id' }));

/** A catalogue parameter the gateway has validated: bounded text. */
const param = text({ maxLength: 256 });
const country = text({ minLength: 2, maxLength: 2 });
const lang = optional(text({ maxLength: 35 }));
const sort = oneOf(['recent', 'helpful']);
const searchPage = integer(1, SEARCH_MAX_PAGE);
const reviewsPage = integer(1, REVIEWS_MAX_PAGE);

const route = <const R extends CatalogQuery['route']>(id: R) => oneOf([id]);

const catalogQuery: WireSchema<CatalogQuery> = variants('route', {
  'apps.search': object({ route: route('apps.search'), term: param, page: searchPage, country, lang }),
  'apps.get': object({ route: route('apps.get'), appId: param, country, lang }),
  'apps.reviews': object({ route: route('apps.reviews'), appId: param, page: reviewsPage, country, sort }),
  'apps.similar': object({ route: route('apps.similar'), appId: param, country, lang }),
  'bundles.search': object({ route: route('bundles.search'), term: param, page: searchPage, country, lang }),
  'bundles.get': object({ route: route('bundles.get'), bundleId: param, country, lang }),
  'bundles.reviews': object({ route: route('bundles.reviews'), bundleId: param, page: reviewsPage, country, sort }),
  'bundles.similar': object({ route: route('bundles.similar'), bundleId: param, country, lang }),
  'developers.get': object({ route: route('developers.get'), developerId: param, country: optional(country) }),
  'apps.ratings': object({ route: route('apps.ratings'), appId: param, country }),
  'apps.privacy': object({ route: route('apps.privacy'), appId: param, country, lang }),
  'apps.versions': object({ route: route('apps.versions'), appId: param, country, lang }),
  'charts.get': object({
    route: route('charts.get'),
    chart: oneOf(CHART_KINDS),
    country,
    genre: optional(param),
    page: integer(1, CHART_MAX_PAGE),
  }),
  'suggestions.search': object({ route: route('suggestions.search'), term: param, country }),
});

/** `catalog.fetch`, `catalog.peek` and each item of `catalog.peek.batch`. */
export const parseCatalogRequest: (payload: unknown) => CatalogRequest = parseWire(
  object({
    query: catalogQuery,
    requestId: text({ maxLength: 128, pattern: REQUEST_ID_PATTERN, rule: 'must be a request id' }),
  }),
);

const keyHash = text({
  minLength: 64,
  maxLength: 64,
  pattern: API_KEY_HASH_PATTERN,
  rule: 'must be the SHA-256 of the key in lowercase hex',
});

const charge = {
  keyHash,
  amount: micros(1n, MAX_TOPUP_MICROS),
  route: text({ maxLength: 128 }),
  requestId,
};

/** `payments.credits.debit` and `.reserve` (and each item of their batches), the amount read as a bigint. */
export const parseChargeRequest = parseWire(object(charge));

const RESERVATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `payments.credits.capture` and `.release`: the charge it was reserved with, and the hold's id. */
export const parseHoldRequest = parseWire(
  object({
    ...charge,
    reservationId: text({
      minLength: 36,
      maxLength: 36,
      pattern: RESERVATION_ID,
      rule: 'must be the id payments.credits.reserve answered',
    }),
  }),
);

/** `payments.credits.balance`. */
export const parseBalanceRequest = parseWire(object({ keyHash }));
