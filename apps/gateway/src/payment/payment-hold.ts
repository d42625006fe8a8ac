import type { Charge } from '../priced/priced-result.js';

/**
 * A payment checked and held, but not yet taken: a credit reservation, or an x402 payment verified
 * with its replay claim. The priced call fetches, then captures on data in hand or releases on failure.
 */
export interface PaymentHold {
  /** Takes the money (captures the reservation, settles the payment); rejects, with nothing charged, when it cannot. */
  capture(): Promise<Charge>;
  /** Gives the hold back after a failure (frees the reservation or the replay claim); never rejects. */
  release(): void;
}
