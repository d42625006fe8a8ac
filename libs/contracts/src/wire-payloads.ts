import { API_KEY_HASH_PATTERN } from './api-key.js';
import type { CatalogQuery, CatalogRequest } from './catalog.js';
import { CHART_KINDS, CHART_MAX_PAGE, REVIEWS_MAX_PAGE, SEARCH_MAX_PAGE } from './catalog.js';
import { REQUEST_ID_PATTERN } from './headers.js';
import type { IdempotencyBeginRequest, IdempotencyFinishRequest } from './idempotency.js';
import { MAX_TOPUP_MICROS, MIN_TOPUP_MICROS, type MicroUsdString } from './money.js';
import type { AdminKeyRef } from './payments.js';
import { type AdminReconcileRequest, RECONCILE_MAX_WAIT_MS } from './reconcile.js';
import {
  integer,
  micros,
  object,
  oneOf,
  openObject,
  optional,
  parseWire,
  text,
  variants,
  type WireSchema,
} from './wire-schema.js';
import type {
  X402AcceptsRequest,
  X402AuthorizeRequest,
  X402Hold,
  X402Offer,
  X402PayRequest,
  X402ReleaseRequest,
  X402Resource,
  X402SettleRequest,
} from './x402.js';

/*
 * Each subject's request as its handler reads it (see wire-schema.ts). The schemas check the shape the
 * wire promises: fields, types and their bounds. The parameter rules themselves (what a term or an app
 * id may be) are the gateway's, in libs/routes, and are not restated here.
 */

const requiredRequestId = text({ maxLength: 128, pattern: REQUEST_ID_PATTERN, rule: 'must be a request id' });
const requestId = optional(requiredRequestId);

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
  'apps.reviews': object({ route: route('apps.reviews'), appId: param, page: reviewsPage, country, sort, lang }),
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
    requestId: requiredRequestId,
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

/** The price on an offer, checked as micro-USD and kept as the text it came as. */
const price: WireSchema<MicroUsdString> = {
  read: (value, path) => micros(1n, MAX_TOPUP_MICROS).read(value, path).toString(),
};
const offer: WireSchema<X402Offer> = object({ price, networks: oneOf(['standard', 'extended']) });
const resource: WireSchema<X402Resource> = object({
  url: text({ maxLength: 8192 }),
  description: text({ minLength: 0, maxLength: 1024 }),
  mimeType: text({ maxLength: 128 }),
});
/** Node's default limit on a request's headers: a longer header never reached the gateway. */
const paymentSignature = text({ maxLength: 16_384 });
const hold: WireSchema<X402Hold> = object({
  paymentId: text({ maxLength: 1024 }),
  claim: text({ maxLength: 64 }),
  requirement: openObject({
    scheme: text({ maxLength: 64 }),
    network: text({ maxLength: 128 }),
    amount: text({ maxLength: 32 }),
    payTo: text({ maxLength: 128 }),
    asset: text({ maxLength: 128 }),
  }),
  settleableUntilMs: integer(0, Number.MAX_SAFE_INTEGER),
});
const paidRoute = text({ maxLength: 128 });

/** `payments.x402.accepts`. */
export const parseX402AcceptsRequest = parseWire<X402AcceptsRequest>(object({ offer }));

/** `payments.x402.authorize`. */
export const parseX402AuthorizeRequest = parseWire<X402AuthorizeRequest>(
  object({ paymentSignature, offer, resource, route: paidRoute, requestId: requiredRequestId }),
);

/** `payments.x402.pay`: the same request as authorize's. */
export const parseX402PayRequest: (payload: unknown) => X402PayRequest = parseX402AuthorizeRequest;

/** `payments.x402.settle`: the hold comes back as payments made it; its requirement's other fields are kept. */
export const parseX402SettleRequest = parseWire<X402SettleRequest>(
  object({ paymentSignature, hold, resource, route: paidRoute, requestId: requiredRequestId }),
);

/** `payments.x402.release`. */
export const parseX402ReleaseRequest = parseWire<X402ReleaseRequest>(object({ hold }));

/** `payments.credits.topup`, the amount read as a bigint. */
export const parseX402TopUpRequest = parseWire(
  object({
    paymentSignature,
    amount: micros(MIN_TOPUP_MICROS, MAX_TOPUP_MICROS),
    resource,
    keyHash: optional(keyHash),
    requestId: requiredRequestId,
  }),
);
export type X402TopUpOrder = ReturnType<typeof parseX402TopUpRequest>;

const idempotencyRecord = {
  /** `x402`, or `key:` and a key hash. */
  scope: text({ maxLength: 128 }),
  /** The caller's Idempotency-Key or payment-identifier. */
  key: text({ maxLength: 255 }),
  requestId: requiredRequestId,
};

/** `payments.idempotency.begin`. */
export const parseIdempotencyBeginRequest = parseWire<IdempotencyBeginRequest>(
  object({ ...idempotencyRecord, fingerprint: text({ maxLength: 128 }) }),
);

/**
 * `payments.idempotency.finish`. The token is empty when begin could not keep a record (Redis away); the
 * answer is bounded only by NATS's largest message, as an answer over the remembered size is kept as made.
 */
export const parseIdempotencyFinishRequest = parseWire<IdempotencyFinishRequest>(
  object({
    ...idempotencyRecord,
    token: text({ minLength: 0, maxLength: 64 }),
    answerJson: optional(text({ minLength: 0, maxLength: 64 * 1024 * 1024 })),
  }),
);

/** `payments.admin.keys.create`: the opening credit read as a bigint ("0" makes an empty key). */
export const parseAdminCreateKeyRequest = parseWire(
  object({ credit: micros(0n, MAX_TOPUP_MICROS), note: optional(text({ minLength: 0, maxLength: 500 })) }),
);
export type AdminKeyOrder = ReturnType<typeof parseAdminCreateKeyRequest>;

/** `payments.admin.keys.revoke` and `.show`: what names the key is read by the key service. */
export const parseAdminKeyRef = parseWire<AdminKeyRef>(object({ ref: text({ maxLength: 128 }) }));

/** `payments.admin.reconcile`: the request may be left out altogether. */
export const parseAdminReconcileRequest = parseWire<AdminReconcileRequest | undefined>(
  optional(object({ waitMs: optional(integer(0, RECONCILE_MAX_WAIT_MS)) })),
);
