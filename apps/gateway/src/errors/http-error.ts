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

export const Messages = {
  notFound: 'not found',
  methodNotAllowed: 'method not allowed',
  paymentRequired: 'payment_required',
  topupRequired: 'topup_required',
  internal: 'internal error',
  malformedUrl: 'malformed url',
  malformedRequest: 'malformed request',
  headersTooLarge: 'request headers too large',
  requestTimeout: 'request timeout',
  hostRequired: 'host header is required',
  expectationFailed: 'expect may only be 100-continue',
} as const;
