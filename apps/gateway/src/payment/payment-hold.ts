import type { Context } from '@appcat/ops';
import type { Charge } from '../priced/priced-result.js';

/**
 * A payment checked and held, but not yet taken: a credit reservation, or an x402 payment verified
 * with its replay claim. The priced call fetches, then captures on data in hand or releases on failure.
 * `trace`: the parent of the request each makes (the call's span, when it is traced).
 */
export interface PaymentHold {
  /** Takes the money (captures the reservation, settles the payment); rejects, with nothing charged, when it cannot. */
  capture(trace?: Context): Promise<Charge>;
  /** Gives the hold back after a failure (frees the reservation or the replay claim); never rejects. */
  release(trace?: Context): void;
}
