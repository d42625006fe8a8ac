import { ErrorCode } from './errors.js';
import {
  parseAdminCreateKeyRequest,
  parseAdminKeyRef,
  parseAdminReconcileRequest,
  parseBalanceRequest,
  parseCatalogRequest,
  parseChargeRequest,
  parseHoldRequest,
  parseIdempotencyBeginRequest,
  parseIdempotencyFinishRequest,
  parseX402AcceptsRequest,
  parseX402AuthorizeRequest,
  parseX402ReleaseRequest,
  parseX402SettleRequest,
  parseX402TopUpRequest,
} from './wire-payloads.js';
import { WirePayloadError } from './wire-schema.js';

const KEY_HASH = 'a'.repeat(64);

/** The message a parser refuses `payload` with (and that it is INVALID_ARGUMENT). */
function refusal(parse: (payload: unknown) => unknown, payload: unknown): string {
  try {
    parse(payload);
  } catch (error) {
    expect(error).toBeInstanceOf(WirePayloadError);
    expect((error as WirePayloadError).code).toBe(ErrorCode.InvalidArgument);
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('parseChargeRequest', () => {
  it('reads a debit as the handler uses it: the amount as a bigint, unknown fields left out', () => {
    expect(
      parseChargeRequest({ keyHash: KEY_HASH, amount: '3000', route: 'apps.get', requestId: 'r-1', extra: true }),
    ).toEqual({ keyHash: KEY_HASH, amount: 3000n, route: 'apps.get', requestId: 'r-1' });
    expect(parseChargeRequest({ keyHash: KEY_HASH, amount: '3000', route: 'apps.get' })).toEqual({
      keyHash: KEY_HASH,
      amount: 3000n,
      route: 'apps.get',
    });
  });

  it.each([
    [null, 'payload must be an object'],
    [[], 'payload must be an object'],
    [{ amount: '3000', route: 'r' }, 'keyHash must be the SHA-256 of the key in lowercase hex'],
    [
      { keyHash: KEY_HASH.toUpperCase(), amount: '3000', route: 'r' },
      'keyHash must be the SHA-256 of the key in lowercase hex',
    ],
    [{ keyHash: KEY_HASH, amount: 3000, route: 'r' }, 'amount must be a micro-USD integer string'],
    [{ keyHash: KEY_HASH, amount: '3.5', route: 'r' }, 'amount must be a micro-USD integer string'],
    [{ keyHash: KEY_HASH, amount: '0', route: 'r' }, 'amount must be from 1 to 10000000000 µUSD'],
    [{ keyHash: KEY_HASH, amount: '3000', route: '' }, 'route must be a string of 1 to 128 characters'],
    [{ keyHash: KEY_HASH, amount: '3000', route: 'r', requestId: 'a b' }, 'requestId must be a request id'],
  ])('refuses %j: "%s"', (payload, message) => {
    expect(refusal(parseChargeRequest, payload)).toBe(message);
  });
});

describe('parseHoldRequest and parseBalanceRequest', () => {
  it('reads a hold with its reservation id, and refuses one without', () => {
    const hold = { keyHash: KEY_HASH, amount: '3000', route: 'apps.get', reservationId: crypto.randomUUID() };
    expect(parseHoldRequest(hold)).toEqual({ ...hold, amount: 3000n });
    expect(refusal(parseHoldRequest, { ...hold, reservationId: 'x' })).toBe(
      'reservationId must be the id payments.credits.reserve answered',
    );
    expect(parseBalanceRequest({ keyHash: KEY_HASH })).toEqual({ keyHash: KEY_HASH });
  });
});

describe('parseCatalogRequest', () => {
  it('reads each route`s query by its route, optional fields left out when absent', () => {
    const search = { route: 'apps.search', term: 'chess', page: 2, country: 'gb' };
    expect(parseCatalogRequest({ query: search, requestId: 'r' })).toEqual({ query: search, requestId: 'r' });
    const reviews = { route: 'bundles.reviews', bundleId: '1', page: 10, country: 'us', sort: 'helpful' };
    expect(parseCatalogRequest({ query: reviews, requestId: 'r' }).query).toEqual(reviews);
  });

  it.each([
    [{ requestId: 'r' }, 'query must be an object'],
    [
      { query: { route: 'apps.delete' }, requestId: 'r' },
      expect.stringMatching(/^query\.route must be one of: apps\.search, /),
    ],
    [
      { query: { route: 'apps.get', country: 'us' }, requestId: 'r' },
      'query.appId must be a string of 1 to 256 characters',
    ],
    [
      { query: { route: 'apps.search', term: 'x', page: 11, country: 'us' }, requestId: 'r' },
      'query.page must be an integer from 1 to 10',
    ],
    [
      { query: { route: 'apps.reviews', appId: '1', page: 1, country: 'us', sort: 'new' }, requestId: 'r' },
      'query.sort must be one of: recent, helpful',
    ],
    [{ query: { route: 'developers.get', developerId: '1' } }, 'requestId must be a request id'],
  ])('refuses %j naming the field', (payload, message) => {
    expect(refusal(parseCatalogRequest, payload)).toEqual(message);
  });
});

const offer = { price: '3000', networks: 'standard' };
const resource = { url: 'https://appcat.example/api/apps/1', description: 'An app', mimeType: 'application/json' };
const hold = {
  paymentId: 'eip155:8453:0xpayer:0xnonce',
  claim: crypto.randomUUID(),
  requirement: {
    scheme: 'exact',
    network: 'eip155:8453',
    amount: '3000',
    payTo: '0xto',
    asset: '0xusdc',
    extra: { v: 2 },
  },
  settleableUntilMs: 1_700_000_000_000,
};

describe('the x402 subjects', () => {
  it('read each request as sent, the hold`s requirement with every field payments put in it', () => {
    expect(parseX402AcceptsRequest({ offer })).toEqual({ offer });
    const authorize = { paymentSignature: 'eyJ4', offer, resource, route: 'apps.get', requestId: 'r' };
    expect(parseX402AuthorizeRequest(authorize)).toEqual(authorize);
    const settle = { paymentSignature: 'eyJ4', hold, resource, route: 'apps.get', requestId: 'r' };
    expect(parseX402SettleRequest(settle)).toEqual(settle);
    expect(parseX402ReleaseRequest({ hold })).toEqual({ hold });
    expect(parseX402TopUpRequest({ paymentSignature: 'eyJ4', amount: '1000000', resource, requestId: 'r' })).toEqual({
      paymentSignature: 'eyJ4',
      amount: 1_000_000n,
      resource,
      requestId: 'r',
    });
  });

  it.each([
    [parseX402AcceptsRequest, { offer: { price: '3000' } }, 'offer.networks must be one of: standard, extended'],
    [
      parseX402AcceptsRequest,
      { offer: { price: 3000, networks: 'standard' } },
      'offer.price must be a micro-USD integer string',
    ],
    [
      parseX402AuthorizeRequest,
      { paymentSignature: 7, offer, resource, route: 'apps.get', requestId: 'r' },
      'paymentSignature must be a string of 1 to 16384 characters',
    ],
    [
      parseX402AuthorizeRequest,
      { paymentSignature: 'eyJ4', offer, resource: { url: 'u' }, route: 'apps.get', requestId: 'r' },
      'resource.description must be a string of 0 to 1024 characters',
    ],
    [
      parseX402SettleRequest,
      { paymentSignature: 'eyJ4', hold: { ...hold, requirement: null }, resource, route: 'r', requestId: 'r' },
      'hold.requirement must be an object',
    ],
    [
      parseX402ReleaseRequest,
      { hold: { ...hold, settleableUntilMs: '1' } },
      expect.stringMatching(/^hold\.settleableUntilMs must be an integer/),
    ],
    [
      parseX402TopUpRequest,
      { paymentSignature: 'eyJ4', amount: '999999', resource, requestId: 'r' },
      'amount must be from 1000000 to 10000000000 µUSD',
    ],
    [
      parseX402TopUpRequest,
      { paymentSignature: 'eyJ4', amount: '1000000', resource, keyHash: 'ak_1', requestId: 'r' },
      'keyHash must be the SHA-256 of the key in lowercase hex',
    ],
  ])('%#: refuses a malformed payload naming the field', (parse, payload, message) => {
    expect(refusal(parse as (payload: unknown) => unknown, payload)).toEqual(message);
  });
});

describe('the idempotency subjects', () => {
  const record = { scope: 'x402', key: 'pay_1', requestId: 'r' };

  it('read a claim, and a finish with or without an answer (an empty token: no record was kept)', () => {
    expect(parseIdempotencyBeginRequest({ ...record, fingerprint: 'f' })).toEqual({ ...record, fingerprint: 'f' });
    expect(parseIdempotencyFinishRequest({ ...record, token: '', answerJson: '{}' })).toEqual({
      ...record,
      token: '',
      answerJson: '{}',
    });
    expect(parseIdempotencyFinishRequest({ ...record, token: 't' })).toEqual({ ...record, token: 't' });
  });

  it.each([
    [
      parseIdempotencyBeginRequest,
      { ...record, scope: '', fingerprint: 'f' },
      'scope must be a string of 1 to 128 characters',
    ],
    [
      parseIdempotencyBeginRequest,
      { ...record, key: 'k'.repeat(256), fingerprint: 'f' },
      'key must be a string of 1 to 255 characters',
    ],
    [parseIdempotencyBeginRequest, record, 'fingerprint must be a string of 1 to 128 characters'],
    [
      parseIdempotencyFinishRequest,
      { ...record, token: 't', answerJson: {} },
      expect.stringMatching(/^answerJson must be a string/),
    ],
    [parseIdempotencyFinishRequest, { ...record, token: 't', requestId: undefined }, 'requestId must be a request id'],
  ])('%#: refuses a malformed payload naming the field', (parse, payload, message) => {
    expect(refusal(parse as (payload: unknown) => unknown, payload)).toEqual(message);
  });
});

describe('the admin subjects', () => {
  it('read the opening credit as a bigint, a key`s name, and a reconciliation with or without its wait', () => {
    expect(parseAdminCreateKeyRequest({ credit: '0' })).toEqual({ credit: 0n });
    expect(parseAdminCreateKeyRequest({ credit: '5', note: '' })).toEqual({ credit: 5n, note: '' });
    expect(parseAdminKeyRef({ ref: 'ak_1' })).toEqual({ ref: 'ak_1' });
    expect(parseAdminReconcileRequest(undefined)).toBeUndefined();
    expect(parseAdminReconcileRequest({})).toEqual({});
    expect(parseAdminReconcileRequest({ waitMs: 0 })).toEqual({ waitMs: 0 });
  });

  it.each([
    [parseAdminCreateKeyRequest, { credit: '-1' }, 'credit must be a micro-USD integer string'],
    [parseAdminCreateKeyRequest, { credit: '10000000001' }, 'credit must be from 0 to 10000000000 µUSD'],
    [
      parseAdminCreateKeyRequest,
      { credit: '1', note: 'n'.repeat(501) },
      'note must be a string of 0 to 500 characters',
    ],
    [parseAdminKeyRef, { ref: 42 }, 'ref must be a string of 1 to 128 characters'],
    [parseAdminReconcileRequest, { waitMs: -1 }, 'waitMs must be an integer from 0 to 120000'],
    [parseAdminReconcileRequest, 'now', 'payload must be an object'],
  ])('%#: refuses a malformed payload naming the field', (parse, payload, message) => {
    expect(refusal(parse as (payload: unknown) => unknown, payload)).toEqual(message);
  });
});
