import { ErrorCode } from '@appcat/contracts';
import { MAX_TOPUP_USD, MIN_TOPUP_USD, PRICE_USD } from './service-facts.js';

/** Where an answer can come from: a priced route, the balance read, a top-up, or any request at all. */
export type ErrorScope = 'priced' | 'balance' | 'topup' | 'any';

/** One error answer as the documents describe it: status, message, cause and what to do. */
export interface DocumentedError {
  status: number;
  /** The exact `message`; when it varies, markdown describing it (`` `<parameter> …` `` with examples). */
  message: string;
  when: string;
  action: string;
  scopes: readonly ErrorScope[];
  /** The typed codes from payments and catalog that the gateway turns into this answer. */
  codes?: readonly ErrorCode[];
  /** The message is fixed text; otherwise it is a pattern described in `message`. */
  exact?: boolean;
}

const NOT_CHARGED = 'Nothing is charged.';

/**
 * Every error answer of the public port. The gateway's tests check this table against its one
 * code-to-status switch (http-status.ts) and its fixed messages, so a new code or message cannot
 * go undocumented.
 */
export const ERROR_CATALOGUE: readonly DocumentedError[] = [
  {
    status: 400,
    message: '`<parameter> …` (e.g. `term is required`, `page must be an integer from 1 to 10`)',
    when: 'A path or query parameter is missing or invalid; the message names it and says the rule.',
    action: `Fix that parameter and call again. ${NOT_CHARGED}`,
    scopes: ['priced'],
  },
  {
    status: 400,
    message: '`<parameter> must be given only once`',
    when: 'A known query parameter appears twice.',
    action: `Send it once. ${NOT_CHARGED}`,
    scopes: ['priced', 'topup'],
  },
  {
    status: 400,
    message: 'authorization and payment-signature cannot be combined: pay with one',
    when: 'A priced call carries both an API key and an x402 payment.',
    action: `Send one of them: we do not guess which to spend. ${NOT_CHARGED}`,
    scopes: ['priced'],
    exact: true,
  },
  {
    status: 400,
    message: `\`amount is required\`, \`amount must be a USD amount from ${MIN_TOPUP_USD} to ${MAX_TOPUP_USD} with at most 6 decimals\``,
    when: 'The top-up `amount` is missing, malformed or out of range.',
    action: `Send \`amount=<USD>\` between ${MIN_TOPUP_USD} and ${MAX_TOPUP_USD}. ${NOT_CHARGED}`,
    scopes: ['topup'],
    codes: [ErrorCode.InvalidArgument],
  },
  {
    status: 400,
    message: 'malformed url',
    when: 'The URL cannot be decoded (bad percent-encoding).',
    action: 'Percent-encode the parameters correctly.',
    scopes: ['any'],
    exact: true,
  },
  {
    status: 400,
    message: 'malformed request',
    when: 'The request is not valid HTTP/1.1 (a broken request line or header); answered on the connection, which is then closed.',
    action: 'Send a well-formed HTTP request.',
    scopes: ['any'],
    exact: true,
  },
  {
    status: 400,
    message: 'host header is required',
    when: 'An HTTP/1.1 request without a `Host` header.',
    action: 'Send `Host` (every HTTP client does).',
    scopes: ['any'],
    exact: true,
  },
  {
    status: 401,
    message: 'authorization must be "Bearer <api key>"',
    when: 'The Authorization header is not a bearer token.',
    action: 'Send `Authorization: Bearer <api key>`.',
    scopes: ['priced', 'balance', 'topup'],
    exact: true,
  },
  {
    status: 401,
    message: 'invalid api key',
    when: 'The key is not one we issued.',
    action: 'Check the key, or buy a new one with `POST /api/credits/topup`.',
    scopes: ['priced', 'balance', 'topup'],
    codes: [ErrorCode.CreditKeyUnknown],
    exact: true,
  },
  {
    status: 401,
    message: 'api key revoked',
    when: 'The key was revoked; it cannot be used or recharged.',
    action: 'Buy a new key with `POST /api/credits/topup` (without Authorization), or pay per call with x402.',
    scopes: ['priced', 'balance', 'topup'],
    codes: [ErrorCode.CreditKeyRevoked],
    exact: true,
  },
  {
    status: 401,
    message: 'an api key is required: Authorization: Bearer <api key>',
    when: 'The balance was asked for without a key.',
    action: 'Send the key whose balance you want.',
    scopes: ['balance'],
    exact: true,
  },
  {
    status: 402,
    message: 'payment_required',
    when: 'A priced call or a top-up without credentials. The `payment-required` header holds the x402 challenge.',
    action:
      'Pay: sign one `accepts` entry of the challenge and retry with `payment-signature` (an x402 client does this), or send an API key.',
    scopes: ['priced', 'topup'],
    exact: true,
  },
  {
    status: 402,
    message: 'topup_required',
    when: `The key's balance is below the price of a call (USD ${PRICE_USD}).`,
    action:
      'Recharge the key: `POST /api/credits/topup?amount=<USD>` with `Authorization: Bearer <api key>` and an x402 payment.',
    scopes: ['priced'],
    codes: [ErrorCode.CreditInsufficient],
    exact: true,
  },
  {
    status: 402,
    message:
      '`<reason>` (e.g. `payment already used`, `payment was made for another resource`, `settlement failed: …`)',
    when: 'An x402 payment that bought nothing: malformed, wrong network/asset/payTo, too small, expired, badly signed, made for another resource, already used, or refused at settlement. A fresh challenge comes with it.',
    action: `Sign a new payment from the fresh \`payment-required\` challenge and retry. ${NOT_CHARGED}`,
    scopes: ['priced', 'topup'],
    codes: [ErrorCode.PaymentInvalid, ErrorCode.PaymentReplayed, ErrorCode.PaymentSettlementFailed],
  },
  {
    status: 404,
    message: 'not found',
    when: 'The path is not one of ours.',
    action: 'Check the path against `/index.md` or `/openapi.json`.',
    scopes: ['any'],
    exact: true,
  },
  {
    status: 405,
    message: 'method not allowed',
    when: 'Another method (HEAD included) on a priced path; `Allow: GET` says which one. Also CONNECT anywhere (`Allow: GET, POST`): this is not a proxy.',
    action: 'Use GET.',
    scopes: ['any'],
    exact: true,
  },
  {
    status: 400,
    message: 'Idempotency-Key must be 1 to 255 visible ASCII characters',
    when: 'The `Idempotency-Key` header is empty, too long, or holds other characters.',
    action: `Send a key of 1 to 255 visible ASCII characters (a UUID will do). ${NOT_CHARGED}`,
    scopes: ['priced'],
    exact: true,
  },
  {
    status: 409,
    message:
      '`<reason>` (e.g. `Idempotency-Key was used for another request`, `payment-identifier was used with another payment`)',
    when:
      'A retry names an earlier call (`Idempotency-Key`, or the x402 `payment-identifier`) but asks or pays for something else, or the first call ' +
      'is still running after the wait.',
    action: `Use a new key or id for a new call; retry the same request with the same payment to get the first answer again. ${NOT_CHARGED}`,
    scopes: ['priced', 'topup'],
    codes: [ErrorCode.IdempotencyConflict],
  },
  {
    status: 408,
    message: 'request timeout',
    when: 'The request headers did not arrive in time; answered on the connection, which is then closed.',
    action: 'Send the whole request promptly.',
    scopes: ['any'],
    exact: true,
  },
  {
    status: 413,
    message: 'request body is too large',
    when: 'A request body beyond the limit; no route takes a body.',
    action: 'Send no body.',
    scopes: ['any'],
    exact: true,
  },
  {
    status: 431,
    message: 'request headers too large',
    when: 'The request headers are too large.',
    action: 'Send smaller headers.',
    scopes: ['any'],
    exact: true,
  },
  {
    status: 417,
    message: 'expect may only be 100-continue',
    when: 'An `Expect` header other than `100-continue`.',
    action: 'Send no `Expect`, or `Expect: 100-continue`.',
    scopes: ['any'],
    exact: true,
  },
  {
    status: 500,
    message: 'internal error',
    when: 'A bug on our side; the answer reveals nothing more.',
    action: 'Retry later; tell us the `x-request-id` if it persists.',
    scopes: ['priced', 'balance', 'topup'],
    codes: [ErrorCode.Internal, ErrorCode.AdminKeyNotFound, ErrorCode.AdminKeyAmbiguous],
    exact: true,
  },
  {
    status: 502,
    message:
      '`<cause>` (e.g. `upstream store timed out after 5000 ms (itunes.apple.com)`, `payment facilitator unreachable`)',
    when:
      'The upstream store or one of our dependencies failed; the message names it and, on a priced call, ends `; nothing was charged`: ' +
      'a failed call is never charged. Only when the charge itself went out and its answer was lost does the message say instead that ' +
      'the charge may have been made (a facilitator that could not be reached at all was never asked to settle: nothing was charged).',
    action:
      'Retry later (after `Retry-After` seconds when given). If the message says the charge may have been made, check the balance or the chain before paying again.',
    scopes: ['priced', 'balance', 'topup'],
    codes: [
      ErrorCode.CreditStoreUnavailable,
      ErrorCode.FacilitatorUnavailable,
      ErrorCode.FacilitatorUnreachable,
      ErrorCode.ServiceUnavailable,
      ErrorCode.ServiceTimeout,
      ErrorCode.ReplyTooLarge,
      ErrorCode.UpstreamTimeout,
      ErrorCode.UpstreamUnreachable,
      ErrorCode.UpstreamThrottled,
      ErrorCode.UpstreamHttpError,
      ErrorCode.UpstreamBadResponse,
    ],
  },
];

/** The error answers a route can give, for OpenAPI and the per-route docs. */
export function errorsFor(scope: Exclude<ErrorScope, 'any'>): DocumentedError[] {
  return ERROR_CATALOGUE.filter((e) => e.scopes.includes(scope));
}

/** The message as markdown: fixed text in a code span, a varying one as its description. */
export function messageMarkdown(error: DocumentedError): string {
  return error.exact ? `\`${error.message}\`` : error.message;
}
