import { ErrorCode } from './errors.js';
import { parseBalanceRequest, parseCatalogRequest, parseChargeRequest, parseHoldRequest } from './wire-payloads.js';
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
