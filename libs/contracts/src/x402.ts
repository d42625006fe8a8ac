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

/** payments.x402.pay: settle one payment (the facilitator verifies it as it settles) for one priced call, before delivery. */
export interface X402PayRequest {
  /** The request's `payment-signature` header, as received (base64 of a PaymentPayload). */
  paymentSignature: string;
  offer: X402Offer;
  resource: X402Resource;
  /** The route paid for, kept with the settlement record. */
  route: string;
  requestId: string;
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
