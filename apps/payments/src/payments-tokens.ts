/** Injection token of the {@link PaymentsConfig} the module was built with. */
export const PAYMENTS_CONFIG = Symbol('PAYMENTS_CONFIG');

/** Parts of the configuration that a provider takes as a constructor argument of its own (as tests pass them). */
export const X402_CONFIG = Symbol('X402_CONFIG');
export const IDEMPOTENCY_SETTINGS = Symbol('IDEMPOTENCY_SETTINGS');
export const UNKNOWN_KEY_TTL_MS = Symbol('UNKNOWN_KEY_TTL_MS');
export const CREDIT_HOLD_MS = Symbol('CREDIT_HOLD_MS');

/**
 * The connections PaymentsResources makes and owns: the call path's Redis (it fails fast while
 * disconnected), the pg pool, and Prisma on that pool.
 */
export const PAYMENTS_REDIS = Symbol('PAYMENTS_REDIS');
export const PG_POOL = Symbol('PG_POOL');
export const PRISMA = Symbol('PRISMA');
