/**
 * A failure that ends a request with an envelope: thrown anywhere in the gateway, written by the
 * error handlers. `message` is shown to the caller as it is.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/**
 * A failure whose charge is unknown: the request that takes the money (a capture, a settlement) went
 * out and its answer was lost, so it may have been applied. The one failure not said to be uncharged.
 */
export class ChargeUnsureError extends HttpError {
  constructor(cause: HttpError) {
    super(
      cause.status,
      `${cause.message}; the charge may have been made: check the balance or the chain before paying again`,
    );
    this.name = 'ChargeUnsureError';
  }
}

/**
 * A failure that payments knows charged nothing even though it came from a request that takes the money
 * (a settlement the facilitator was never asked for): left as it is, never made a ChargeUnsureError.
 */
export class NothingChargedError extends HttpError {
  constructor(status: number, message: string) {
    super(status, message);
    this.name = 'NothingChargedError';
  }
}

export const Messages = {
  notFound: 'not found',
  methodNotAllowed: 'method not allowed',
  paymentRequired: 'payment_required',
  topupRequired: 'topup_required',
  internal: 'internal error',
  apiKeyRequired: 'an api key is required: Authorization: Bearer <api key>',
  malformedUrl: 'malformed url',
  malformedRequest: 'malformed request',
  headersTooLarge: 'request headers too large',
  requestTimeout: 'request timeout',
  hostRequired: 'host header is required',
  expectationFailed: 'expect may only be 100-continue',
} as const;
