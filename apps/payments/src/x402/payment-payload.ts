import { decodeX402Header, ErrorCode, type X402Requirement } from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import {
  FacilitatorTimeoutError,
  type PaymentPayload,
  type PaymentRequirements,
  SettleError,
  VerifyError,
} from '@x402/core/types';
import { FacilitatorUnreachableError } from './facilitator-client.js';

/** The largest `payment-signature` header accepted; real payloads are well under 4 KiB. */
const MAX_SIGNATURE_LENGTH = 16_384;
/** Cap on free text copied into a header (viem errors run to kilobytes). */
const MAX_REASON_LENGTH = 160;

/** The PaymentPayload in a `payment-signature` header; a PAYMENT_INVALID refusal for anything else. */
export function decodePaymentSignature(header: string): PaymentPayload {
  if (header.length > MAX_SIGNATURE_LENGTH) throw invalid('payment-signature is too large');
  let payload: PaymentPayload;
  try {
    payload = decodeX402Header(header) as PaymentPayload;
  } catch {
    throw invalid('payment-signature is not a base64 JSON x402 payment payload');
  }
  if (typeof payload !== 'object' || payload === null || payload.x402Version !== 2)
    throw invalid('only x402 version 2 payments are accepted');
  if (typeof payload.accepted !== 'object' || payload.accepted === null || typeof payload.payload !== 'object') {
    throw invalid('payment-signature lacks the accepted requirements or the signed payload');
  }
  return payload;
}

export function invalid(message: string): WireException {
  return new WireException(ErrorCode.PaymentInvalid, trim(message));
}

export function settlementFailed(reason: string | undefined): WireException {
  return new WireException(ErrorCode.PaymentSettlementFailed, `settlement failed: ${trim(reason ?? 'unknown reason')}`);
}

/** A facilitator request's failure as the refusal the caller gets. */
export function facilitatorFailure(error: unknown): WireException {
  if (error instanceof WireException) return error;
  if (error instanceof VerifyError) return invalid(`payment rejected: ${error.invalidReason ?? 'invalid'}`);
  if (error instanceof SettleError) return settlementFailed(error.errorReason);
  if (error instanceof FacilitatorTimeoutError) {
    return new WireException(
      ErrorCode.FacilitatorUnavailable,
      'payment facilitator did not answer in time; the payment may have settled',
    );
  }
  if (error instanceof FacilitatorUnreachableError) return unreachable();
  return new WireException(ErrorCode.FacilitatorUnavailable, 'payment facilitator unreachable');
}

/** The facilitator could not be used at all: nothing was asked of it, so nothing was charged. */
export function unreachable(): WireException {
  return new WireException(ErrorCode.FacilitatorUnreachable, 'payment facilitator unreachable');
}

/** Says which field of the payment does not meet any offered requirement. */
export function mismatchReason(payload: PaymentPayload, accepts: X402Requirement[]): string {
  const accepted = payload.accepted as Partial<PaymentRequirements>;
  const sameNetwork = accepts.filter((a) => a.network === accepted.network);
  if (sameNetwork.length === 0) return `network ${String(accepted.network)} is not accepted here`;
  const offer = sameNetwork[0];
  if (accepted.scheme !== offer.scheme) return `scheme ${String(accepted.scheme)} is not accepted here`;
  if (String(accepted.asset).toLowerCase() !== offer.asset.toLowerCase())
    return 'payment asset is not the USDC this resource accepts';
  if (String(accepted.payTo).toLowerCase() !== offer.payTo.toLowerCase())
    return 'payment is not addressed to this service';
  if (accepted.amount !== offer.amount) {
    return BigInt(/^\d+$/.test(String(accepted.amount)) ? String(accepted.amount) : '0') < BigInt(offer.amount)
      ? `payment amount is below the price (${offer.amount} required)`
      : `payment amount does not match the price (${offer.amount} required)`;
  }
  return 'payment does not match the requirements of this resource';
}

export function trim(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_REASON_LENGTH ? `${oneLine.slice(0, MAX_REASON_LENGTH - 1)}…` : oneLine;
}

export function describe(error: unknown): string {
  return trim(error instanceof Error ? error.message : String(error));
}
