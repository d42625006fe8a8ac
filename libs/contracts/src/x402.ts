import type { ApiKeyHash } from './payments.js';
import type { MicroUsdString } from './money.js';

/**
 * Which x402 networks an offer accepts: the app and bundle routes and top-ups take Base, Monad and
 * Solana; the developers route also Polygon and Arbitrum (spec §5).
 */
export type NetworkSet = 'standard' | 'extended';

/** What is for sale: a price and the networks it can be paid on. */
export interface X402Offer {
  price: MicroUsdString;
  networks: NetworkSet;
}

/** The resource being paid for, as x402's `PaymentRequired.resource` names it. */
export interface X402Resource {
  url: string;
  description: string;
  mimeType: string;
}

/**
 * An x402 v2 `PaymentRequirements` entry (one `accepts` element). Opaque to the gateway, which only
 * forwards it inside the `payment-required` header; payments builds it with @x402/core.
 */
export type X402Requirement = Record<string, unknown> & {
  scheme: string;
  network: string;
  amount: string;
  payTo: string;
  asset: string;
};

/** payments.x402.accepts: the `accepts` list for an offer, in the order clients should prefer. */
export interface X402AcceptsRequest {
  offer: X402Offer;
}

export interface X402AcceptsReply {
  accepts: X402Requirement[];
}

/**
 * payments.x402.authorize: check one payment for one priced call and claim it against replays, without
 * taking the money. Answers the {@link X402Hold} to settle or release.
 */
export interface X402AuthorizeRequest {
  /** The request's `payment-signature` header, as received (base64 of a PaymentPayload). */
  paymentSignature: string;
  offer: X402Offer;
  resource: X402Resource;
  /** The route paid for, kept with the settlement record. */
  route: string;
  requestId: string;
}

/**
 * A payment checked and claimed, not yet settled: what any payments replica needs to settle or release
 * it. Opaque to the gateway, which sends it back as it came.
 */
export interface X402Hold {
  /** The payment's identity (network, payer, nonce; or the payer's Solana signatures): its claim's name. */
  paymentId: string;
  /** This authorization's own mark on the claim: a release by anyone else changes nothing. */
  claim: string;
  /** The offered requirement the payment was checked against, and is settled against. */
  requirement: X402Requirement;
  /** Until when (epoch ms) the payment could still settle: its claim, then its "used" mark, lasts that long. */
  settleableUntilMs: number;
}

/**
 * payments.x402.pay: take a payment at once for a call whose data the gateway already holds (its near
 * cache): checked like an authorization, claimed, settled and recorded in one request → {@link X402Receipt}.
 * Nothing is fetched for it, so the facilitator's settle, which verifies the signature itself, is its
 * only signature check.
 */
export type X402PayRequest = X402AuthorizeRequest;

/** payments.x402.settle: take the money of a held payment once the call's data is in hand → {@link X402Receipt}. */
export interface X402SettleRequest {
  paymentSignature: string;
  hold: X402Hold;
  resource: X402Resource;
  /** The route paid for, kept with the settlement record. */
  route: string;
  requestId: string;
}

/** payments.x402.release: give a held payment back after the call failed, so it can buy the retry. */
export interface X402ReleaseRequest {
  hold: X402Hold;
}

export interface X402ReleaseReply {
  /** False when the claim was no longer this hold's (already settled, released, or expired). */
  released: boolean;
}

/** A settled payment. */
export interface X402Receipt {
  /** base64 `SettleResponse` for the `payment-response` header, trimmed to stay small. */
  paymentResponse: string;
  network: string;
  payer: string;
  transaction: string;
}

/**
 * payments.credits.topup: buy credit with an x402 payment of `amount`. With `keyHash` the payment
 * recharges that key; without, it creates a new key holding exactly `amount`.
 */
export interface X402TopUpRequest {
  paymentSignature: string;
  amount: MicroUsdString;
  resource: X402Resource;
  keyHash?: ApiKeyHash;
  requestId: string;
}

export interface X402TopUpReply {
  receipt: X402Receipt;
  /** Present only when a new key was created: the one time it is ever shown. */
  key?: string;
  id: string;
  prefix: string;
  /** Balance after the top-up, µUSD. */
  balance: MicroUsdString;
}
