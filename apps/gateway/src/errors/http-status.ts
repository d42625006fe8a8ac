import { ErrorCode } from '@appcat/contracts';
import { HttpError, Messages, NothingChargedError } from './http-error.js';

/**
 * The one place where a typed error from payments or catalog becomes an HTTP answer. The switch is
 * exhaustive: adding a code to ErrorCode without deciding its status fails the build.
 */
export function httpErrorFor(code: ErrorCode, message: string): HttpError {
  switch (code) {
    case ErrorCode.CreditKeyUnknown:
      return new HttpError(401, 'invalid api key');
    case ErrorCode.CreditKeyRevoked:
      return new HttpError(401, 'api key revoked');
    case ErrorCode.CreditInsufficient:
      return new HttpError(402, Messages.topupRequired);
    case ErrorCode.InvalidArgument:
      return new HttpError(400, message);
    // A payment that buys nothing: 402 with the reason (the x402 path adds a fresh challenge header).
    case ErrorCode.PaymentInvalid:
    case ErrorCode.PaymentReplayed:
    case ErrorCode.PaymentSettlementFailed:
      return new HttpError(402, message);
    // A retry named like an earlier call that asked or paid for something else: nothing is charged.
    case ErrorCode.IdempotencyConflict:
      return new HttpError(409, message);
    // A dependency is down or the upstream store failed: the spec's one 5xx, 502, with a message naming
    // the cause (a priced call's adds that nothing was charged: ErrorAnswers.uncharged).
    case ErrorCode.CreditStoreUnavailable:
    case ErrorCode.FacilitatorUnavailable:
    case ErrorCode.ServiceUnavailable:
    case ErrorCode.ServiceTimeout:
    case ErrorCode.ReplyTooLarge:
    case ErrorCode.UpstreamTimeout:
    case ErrorCode.UpstreamUnreachable:
    case ErrorCode.UpstreamThrottled:
    case ErrorCode.UpstreamHttpError:
    case ErrorCode.UpstreamBadResponse:
      return new HttpError(502, message);
    // The same 502, but payments knows no settlement was asked for: even a charging request's failure says nothing was charged.
    case ErrorCode.FacilitatorUnreachable:
      return new NothingChargedError(502, message);
    // Admin codes never come back to the public port; if one did, it is our bug.
    case ErrorCode.AdminKeyNotFound:
    case ErrorCode.AdminKeyAmbiguous:
    case ErrorCode.Internal:
      return new HttpError(500, Messages.internal);
    default:
      return assertNever(code);
  }
}

function assertNever(code: never): never {
  throw new Error(`unmapped error code ${String(code)}`);
}
