/**
 * NATS subjects and queue groups. Every handler subscribes inside its service's queue group, so a
 * request is handled by exactly one replica however many run (a plain subscription would run the
 * handler, and the debit, on every replica).
 */
export const QueueGroup = {
  Payments: 'payments',
  Catalog: 'catalog',
} as const;

export const Subject = {
  /** Debit one call from a prepaid key: {@link DebitRequest} → {@link DebitReply}. */
  CreditsDebit: 'payments.credits.debit',
  /** Read a key's balance, free: {@link BalanceRequest} → {@link BalanceReply}. */
  CreditsBalance: 'payments.credits.balance',

  /** The x402 `accepts` list for an offer: {@link X402AcceptsRequest} → {@link X402AcceptsReply}. */
  X402Accepts: 'payments.x402.accepts',
  /** Verify and settle an x402 payment for a call: {@link X402PayRequest} → {@link X402Receipt}. */
  X402Pay: 'payments.x402.pay',
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
} as const;

export type SubjectName = (typeof Subject)[keyof typeof Subject];
