import type { BatchReply, BatchRequest } from './batch.js';
import type { CatalogPeekReply, CatalogReply, CatalogRequest } from './catalog.js';
import type {
  BalanceReply,
  BalanceRequest,
  CaptureReply,
  DebitReply,
  DebitRequest,
  HoldRequest,
  ReleaseReply,
  ReserveReply,
  ReserveRequest,
} from './payments.js';
import type {
  X402AcceptsReply,
  X402AcceptsRequest,
  X402AuthorizeRequest,
  X402Hold,
  X402PayRequest,
  X402Receipt,
  X402ReleaseReply,
  X402ReleaseRequest,
  X402SettleRequest,
  X402TopUpReply,
  X402TopUpRequest,
} from './x402.js';

/**
 * NATS subjects and queue groups. Every handler subscribes inside its service's queue group, so a
 * request is handled by exactly one replica however many run (a plain subscription would run the
 * handler, and the debit, on every replica).
 */
export const QueueGroup = {
  Payments: 'payments',
  Catalog: 'catalog',
  PlayCatalog: 'catalog-google-play',
} as const;

export const Subject = {
  /**
   * Debit one call from a prepaid key in one step, for data already in hand (the gateway's near cache):
   * {@link DebitRequest} → {@link DebitReply}.
   */
  CreditsDebit: 'payments.credits.debit',
  /**
   * Several debits at once, each exactly as {@link Subject.CreditsDebit} would make it:
   * {@link BatchRequest} of {@link DebitRequest} → {@link BatchReply} of {@link DebitReply}.
   */
  CreditsDebitBatch: 'payments.credits.debit.batch',
  /** Hold one call's price before fetching: {@link ReserveRequest} → {@link ReserveReply}. */
  CreditsReserve: 'payments.credits.reserve',
  CreditsReserveBatch: 'payments.credits.reserve.batch',
  /** Spend a hold once the data is in hand: {@link HoldRequest} → {@link CaptureReply}. */
  CreditsCapture: 'payments.credits.capture',
  CreditsCaptureBatch: 'payments.credits.capture.batch',
  /** Give a hold back after a failure: {@link HoldRequest} → {@link ReleaseReply}. */
  CreditsRelease: 'payments.credits.release',
  CreditsReleaseBatch: 'payments.credits.release.batch',
  /** Read a key's balance, free: {@link BalanceRequest} → {@link BalanceReply}. */
  CreditsBalance: 'payments.credits.balance',

  /** The x402 `accepts` list for an offer: {@link X402AcceptsRequest} → {@link X402AcceptsReply}. */
  X402Accepts: 'payments.x402.accepts',
  /** Check an x402 payment for a call and claim it, taking nothing: {@link X402AuthorizeRequest} → {@link X402Hold}. */
  X402Authorize: 'payments.x402.authorize',
  /** Check, claim and settle a payment at once, for data already in hand: {@link X402PayRequest} → {@link X402Receipt}. */
  X402Pay: 'payments.x402.pay',
  /** Settle a held payment once the call's data is in hand: {@link X402SettleRequest} → {@link X402Receipt}. */
  X402Settle: 'payments.x402.settle',
  /** Give a held payment back after a failed call: {@link X402ReleaseRequest} → {@link X402ReleaseReply}. */
  X402Release: 'payments.x402.release',
  /** Create or recharge a key with an x402 payment: {@link X402TopUpRequest} → {@link X402TopUpReply}. */
  CreditsTopUp: 'payments.credits.topup',

  /** Claim or read a remembered answer: {@link IdempotencyBeginRequest} → {@link IdempotencyBeginReply}. */
  IdempotencyBegin: 'payments.idempotency.begin',
  /** Remember a claimed call's answer, or release it: {@link IdempotencyFinishRequest} → {@link IdempotencyFinishReply}. */
  IdempotencyFinish: 'payments.idempotency.finish',

  /** Admin only; not reachable from the gateway. {@link AdminCreateKeyRequest} → {@link AdminKeyCreated}. */
  AdminKeysCreate: 'payments.admin.keys.create',
  AdminKeysRevoke: 'payments.admin.keys.revoke',
  AdminKeysShow: 'payments.admin.keys.show',
  AdminKeysList: 'payments.admin.keys.list',
  /** Admin only: prove the books. {@link AdminReconcileRequest} → {@link AdminReconcileReply}. */
  AdminReconcile: 'payments.admin.reconcile',

  /** Fetch catalogue data from the upstream store: {@link CatalogRequest} → {@link CatalogReply}. */
  CatalogFetch: 'catalog.fetch',
  /**
   * The same answer only if the cache holds it fresh, never asking the upstream: {@link CatalogRequest}
   * → {@link CatalogReply}, or null when it does not. The gateway reads ahead this way while a call is
   * being charged, so the read costs an unpaid call no upstream request.
   */
  CatalogPeek: 'catalog.peek',
  /** Several peeks at once: {@link BatchRequest} of {@link CatalogRequest} → {@link BatchReply} of {@link CatalogPeekReply}. */
  CatalogPeekBatch: 'catalog.peek.batch',
  /** The same three for Google Play's catalog (`CATALOG_SUBJECTS` in stores.ts picks a store's). */
  PlayCatalogFetch: 'catalog.google-play.fetch',
  PlayCatalogPeek: 'catalog.google-play.peek',
  PlayCatalogPeekBatch: 'catalog.google-play.peek.batch',
} as const;

/**
 * The subjects whose requests the gateway coalesces, each with the subject that takes a batch of them.
 * A lone request still goes to its own subject; only two or more in one loop turn go as a batch.
 * (`catalog.fetch` is not coalesced: it may wait on the upstream, and one slow item would hold up the
 * whole batch's reply.)
 */
export const BatchSubject = {
  [Subject.CreditsDebit]: Subject.CreditsDebitBatch,
  [Subject.CreditsReserve]: Subject.CreditsReserveBatch,
  [Subject.CreditsCapture]: Subject.CreditsCaptureBatch,
  [Subject.CreditsRelease]: Subject.CreditsReleaseBatch,
  [Subject.CatalogPeek]: Subject.CatalogPeekBatch,
  [Subject.PlayCatalogPeek]: Subject.PlayCatalogPeekBatch,
} as const;

export type BatchableSubject = keyof typeof BatchSubject;

export type SubjectName = (typeof Subject)[keyof typeof Subject];

/**
 * What each subject the gateway calls takes and answers, so a request is typed by its subject alone
 * (`TypedRpc` in libs/microservice reads this).
 */
export interface GatewayRpcShapes {
  [Subject.CreditsDebit]: { request: DebitRequest; reply: DebitReply };
  [Subject.CreditsReserve]: { request: ReserveRequest; reply: ReserveReply };
  [Subject.CreditsCapture]: { request: HoldRequest; reply: CaptureReply };
  [Subject.CreditsRelease]: { request: HoldRequest; reply: ReleaseReply };
  [Subject.CreditsBalance]: { request: BalanceRequest; reply: BalanceReply };
  [Subject.X402Accepts]: { request: X402AcceptsRequest; reply: X402AcceptsReply };
  [Subject.X402Authorize]: { request: X402AuthorizeRequest; reply: X402Hold };
  [Subject.X402Pay]: { request: X402PayRequest; reply: X402Receipt };
  [Subject.X402Settle]: { request: X402SettleRequest; reply: X402Receipt };
  [Subject.X402Release]: { request: X402ReleaseRequest; reply: X402ReleaseReply };
  [Subject.CreditsTopUp]: { request: X402TopUpRequest; reply: X402TopUpReply };
  [Subject.CatalogFetch]: { request: CatalogRequest; reply: CatalogReply };
  [Subject.CatalogPeek]: { request: CatalogRequest; reply: CatalogPeekReply };
  [Subject.CreditsDebitBatch]: { request: BatchRequest<DebitRequest>; reply: BatchReply<DebitReply> };
  [Subject.CreditsReserveBatch]: { request: BatchRequest<ReserveRequest>; reply: BatchReply<ReserveReply> };
  [Subject.CreditsCaptureBatch]: { request: BatchRequest<HoldRequest>; reply: BatchReply<CaptureReply> };
  [Subject.CreditsReleaseBatch]: { request: BatchRequest<HoldRequest>; reply: BatchReply<ReleaseReply> };
  [Subject.CatalogPeekBatch]: { request: BatchRequest<CatalogRequest>; reply: BatchReply<CatalogPeekReply> };
  [Subject.PlayCatalogFetch]: { request: CatalogRequest; reply: CatalogReply };
  [Subject.PlayCatalogPeek]: { request: CatalogRequest; reply: CatalogPeekReply };
  [Subject.PlayCatalogPeekBatch]: { request: BatchRequest<CatalogRequest>; reply: BatchReply<CatalogPeekReply> };
}

export type GatewaySubject = keyof GatewayRpcShapes;
