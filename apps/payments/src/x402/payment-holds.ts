import {
  encodeX402Header,
  ErrorCode,
  type X402Hold,
  type X402Offer,
  type X402Receipt,
  type X402Resource,
} from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import { attachContext, type Context, OUTCOME, PaymentsMetrics, withSpan } from '@appcat/ops';
import type { RedisClient } from '@appcat/redis';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  FacilitatorTimeoutError,
  type PaymentPayload,
  type PaymentRequirements,
  type SettleResponse,
} from '@x402/core/types';
import { randomUUID } from 'node:crypto';
import { PAYMENTS_REDIS } from '../payments-tokens.js';
import { FacilitatorConnection } from './facilitator-connection.js';
import { KnownPayers } from './known-payers.js';
import { checkPaymentLocally, checkPaymentTerms } from './local-payment-check.js';
import { type ClaimRefusal, PaymentLock } from './payment-lock.js';
import { decodePaymentSignature, describe, facilitatorFailure, invalid, settlementFailed } from './payment-payload.js';
import { paymentValidity, type ValidityVerdict } from './payment-validity.js';
import { type SettlementRecord, SettlementRecords } from './settlement-records.js';
import type { PaymentKeys } from './x402-keyspace.js';
import { X402Offers } from './x402-offers.js';

/** What a payment buys, kept with its settlement record. */
export interface PaidFor {
  purpose: SettlementRecord['purpose'];
  route: string;
  requestId: string;
}

export interface Settlement {
  receipt: X402Receipt;
  amount: bigint;
}

/** A payment as far as it can be checked without its signature or Redis (PaymentHolds.terms). */
interface PaymentTerms {
  payload: PaymentPayload;
  requirement: PaymentRequirements;
  kind: 'evm' | 'svm';
  validity: Extract<ValidityVerdict, { ok: true }>;
  paymentId: string;
  keys: PaymentKeys;
}

/** A payment this request has claimed: what settling it needs to record it and to decide its claim's fate. */
interface Claimed {
  paymentId: string;
  keys: PaymentKeys;
  /** This request's mark on the claim. */
  mark: string;
  settleableUntilMs: number;
  /** Who pays (KnownPayers.payerOf). */
  payer: string | undefined;
}

/** The least time a settled payload stays marked used, whatever its hold said. */
const MIN_USED_MS = 1_000;

/**
 * x402 payments held between the check and the charge. `authorize` checks a payment against the offer
 * (locally, or with the facilitator's /verify where only the chain can tell) and claims it in Redis;
 * `settle` takes the money once the data is in hand; `release` gives it back after a failure. Every
 * replica can settle or release what another authorized: the hold travels with the request and the
 * claim lives in Redis.
 */
@Injectable()
export class PaymentHolds {
  private readonly logger = new Logger('PaymentHolds');
  private readonly lock: PaymentLock;
  private readonly payers: KnownPayers;

  constructor(
    @Inject(FacilitatorConnection) private readonly connection: FacilitatorConnection,
    @Inject(X402Offers) private readonly offers: X402Offers,
    @Inject(PAYMENTS_REDIS) redis: RedisClient,
    @Inject(PaymentsMetrics) private readonly metrics: PaymentsMetrics,
    @Inject(SettlementRecords) private readonly records: SettlementRecords,
  ) {
    this.lock = new PaymentLock(redis);
    this.payers = new KnownPayers(redis, records.keyspace);
  }

  /**
   * Checks a payment for `offer` on `resource` and claims it; nothing is charged. Every refusal is a
   * typed WireException naming the reason, made before any upstream request can be. A payer not known
   * to have settled lately (KnownPayers) is verified by the facilitator, funds included, first.
   */
  authorize(paymentSignature: string, offer: X402Offer, resource: X402Resource): Promise<X402Hold> {
    return withSpan('x402.check', { 'appcat.rail': 'x402' }, async (span) => {
      const hold = await this.check(paymentSignature, offer, resource, span.context);
      span.set({ 'appcat.network': hold.requirement.network, [OUTCOME]: 'ok' });
      return hold;
    });
  }

  /**
   * Takes a payment at once for a call whose data is already in hand (the gateway's near cache): the
   * checks of `authorize` but the EIP-3009 signature's, the claim, then the settlement and its record.
   * Nothing is fetched for this call, so nothing upstream waits on the signature, and the facilitator's
   * settle verifies it before it moves any money: the recovery `authorize` does locally (several ms of
   * CPU) would only repeat it.
   */
  pay(paymentSignature: string, offer: X402Offer, resource: X402Resource, paidFor: PaidFor): Promise<Settlement> {
    return withSpan('x402.pay', { 'appcat.rail': 'x402', 'appcat.route': paidFor.route }, async (span) => {
      const settlement = await this.payAtOnce(paymentSignature, offer, resource, paidFor, span.context);
      span.set({ 'appcat.network': settlement.receipt.network, [OUTCOME]: 'ok' });
      return settlement;
    });
  }

  /** @param trace the `x402.pay` span's context, the facilitator request's parent. */
  private async payAtOnce(
    paymentSignature: string,
    offer: X402Offer,
    resource: X402Resource,
    paidFor: PaidFor,
    trace: Context | undefined,
  ): Promise<Settlement> {
    const { payload, requirement, kind, validity, paymentId, keys } = await this.terms(
      paymentSignature,
      offer,
      resource,
    );
    const mark = randomUUID();
    // The transfer's terms (payee, amount; a Solana payer's signatures) are checked while the claim travels.
    const [claim, verdict] = await Promise.all([
      this.lock.claim(keys, validity.lockMs, mark),
      checkPaymentTerms(kind, payload.payload, requirement),
    ]);
    if (verdict.kind === 'invalid') {
      if (claim.claimed) await this.lock.release(keys, mark);
      throw invalid(verdict.reason);
    }
    if (!claim.claimed) throw replayed(claim.refusal);
    if (claim.degraded) this.logger.warn('payment lock unavailable (Redis down); relying on on-chain settlement alone');
    const payer = KnownPayers.payerOf(payload.payload);
    const claimed: Claimed = { paymentId, keys, mark, settleableUntilMs: Date.now() + validity.lockMs, payer };
    return this.settleClaimed(payload, requirement, claimed, resource, paidFor, trace, async () => {
      // Marked refused, and its payer forgotten, only if the signature holds (checked now, on a refusal
      // alone): a forged copy's claim is given back, so it cannot spoil the genuine payload whose payer
      // and nonce it copies.
      const signed = await checkPaymentLocally(kind, payload.payload, requirement);
      if (signed.kind === 'valid')
        await Promise.all([this.lock.refuse(keys, mark), this.payers.forget(requirement.network, payer)]);
      else await this.lock.release(keys, mark);
    });
  }

  /** @param trace the `x402.check` span's context, the facilitator request's parent. */
  private async check(
    paymentSignature: string,
    offer: X402Offer,
    resource: X402Resource,
    trace: Context | undefined,
  ): Promise<X402Hold> {
    const { payload, requirement, kind, validity, paymentId, keys } = await this.terms(
      paymentSignature,
      offer,
      resource,
    );
    const mark = randomUUID();
    const payer = KnownPayers.payerOf(payload.payload);
    // The signature is checked while the claim and the payer's lookup travel (sent together: one round
    // trip); a forged copy's claim is given back at once.
    const [claim, verdict, known] = await Promise.all([
      this.lock.claim(keys, validity.lockMs, mark),
      checkPaymentLocally(kind, payload.payload, requirement),
      this.payers.known(requirement.network, payer),
    ]);
    if (verdict.kind === 'invalid') {
      if (claim.claimed) await this.lock.release(keys, mark);
      throw invalid(verdict.reason);
    }
    if (!claim.claimed) throw replayed(claim.refusal);
    if (claim.degraded) this.logger.warn('payment lock unavailable (Redis down); relying on on-chain settlement alone');
    // A signature proves who signed, not that the wallet holds the money: a payer that has not settled
    // lately is verified (funds included) before anything is fetched for it, as one only the chain can judge.
    if (verdict.kind === 'undecided' || !known) {
      try {
        attachContext(payload, trace);
        const verified = await this.connection.client.verify(payload, requirement);
        if (!verified.isValid) throw invalid(`payment rejected: ${verified.invalidReason ?? 'invalid'}`);
      } catch (error) {
        // Given back either way: a refusal judged this signature, and another may carry the same nonce.
        await this.lock.release(keys, mark);
        throw this.failure(error);
      }
    }
    return {
      paymentId,
      claim: mark,
      requirement: requirement as X402Hold['requirement'],
      settleableUntilMs: Date.now() + validity.lockMs,
    };
  }

  /**
   * What can be told of a payment without its signature or Redis: the payload, the offered entry it
   * answers, and that it can settle now and not after its claim is gone. Refusals are PAYMENT_INVALID.
   */
  private async terms(paymentSignature: string, offer: X402Offer, resource: X402Resource): Promise<PaymentTerms> {
    const payload = decodePaymentSignature(paymentSignature);
    if (payload.resource?.url !== undefined && payload.resource.url !== resource.url) {
      throw invalid('payment was made for another resource');
    }
    const requirement = await this.offers.requirementFor(payload, offer);
    const kind = this.connection.network(requirement.network)?.kind ?? 'evm';
    // A payload that cannot settle now, or could settle after its claim is gone, is refused here.
    const validity = paymentValidity(kind, payload.payload, this.connection.config.maxTimeoutSeconds);
    if (!validity.ok) throw invalid(validity.reason);
    const paymentId = PaymentLock.identify(requirement.network, payload.payload, paymentSignature);
    return { payload, requirement, kind, validity, paymentId, keys: this.records.keyspace.keysOf(paymentId) };
  }

  /**
   * Settles a held payment; resolves once the facilitator has settled it and the settlement is recorded.
   * A refusal marks the payload refused and forgets its payer; an unreachable facilitator gives it back (it bought nothing);
   * one that did not answer in time keeps it held (it may have settled).
   */
  settle(paymentSignature: string, hold: X402Hold, resource: X402Resource, paidFor: PaidFor): Promise<Settlement> {
    const attributes = {
      'appcat.rail': 'x402',
      'appcat.network': hold.requirement.network,
      'appcat.route': paidFor.route,
    };
    return withSpan('x402.settle', attributes, async (span) => {
      const settlement = await this.settleHeld(paymentSignature, hold, resource, paidFor, span.context);
      span.set({ [OUTCOME]: 'ok' });
      return settlement;
    });
  }

  /** @param trace the `x402.settle` span's context, the facilitator request's parent. */
  private async settleHeld(
    paymentSignature: string,
    hold: X402Hold,
    resource: X402Resource,
    paidFor: PaidFor,
    trace: Context | undefined,
  ): Promise<Settlement> {
    const payload = decodePaymentSignature(paymentSignature);
    const requirement = hold.requirement as PaymentRequirements;
    if (
      !this.connection.server.findMatchingRequirements([requirement], payload) ||
      PaymentLock.identify(requirement.network, payload.payload, paymentSignature) !== hold.paymentId
    ) {
      throw invalid('payment is not the one this hold was made for');
    }
    const keys = this.records.keyspace.keysOf(hold.paymentId);
    const claimed: Claimed = {
      paymentId: hold.paymentId,
      keys,
      mark: hold.claim,
      settleableUntilMs: hold.settleableUntilMs,
      payer: KnownPayers.payerOf(payload.payload),
    };
    // Its signature was checked when it was held: a refusal now is about this payment itself (a drained
    // wallet, say), so its payer is verified again next time.
    return this.settleClaimed(payload, requirement, claimed, resource, paidFor, trace, async () => {
      await Promise.all([this.lock.refuse(keys, hold.claim), this.payers.forget(requirement.network, claimed.payer)]);
    });
  }

  /**
   * Settles a claimed payment and records the settlement. A refusal (`refused` decides the claim's
   * fate); an unreachable facilitator gives the claim back (it bought nothing; FACILITATOR_UNREACHABLE
   * when no connection could be opened, so the caller is told nothing was charged); one that did not
   * answer in time keeps it (it may have settled).
   */
  private async settleClaimed(
    payload: PaymentPayload,
    requirement: PaymentRequirements,
    claimed: Claimed,
    resource: X402Resource,
    paidFor: PaidFor,
    trace: Context | undefined,
    refused: () => Promise<void>,
  ): Promise<Settlement> {
    const { keys } = claimed;
    const started = performance.now();
    const observe = (outcome: string) =>
      this.metrics.settlementSeconds.observe(
        { network: requirement.network, outcome },
        (performance.now() - started) / 1000,
      );
    let settled: SettleResponse;
    try {
      // The x402 server hands the payload to our facilitator client, whose span finds its parent on it.
      attachContext(payload, trace);
      settled = await this.connection.server.settlePayment(payload, requirement);
      if (!settled.success) throw settlementFailed(settled.errorReason);
    } catch (error) {
      const failure = this.failure(error);
      if (failure.code === ErrorCode.PaymentSettlementFailed || failure.code === ErrorCode.PaymentInvalid)
        await refused();
      else if (!(error instanceof FacilitatorTimeoutError)) await this.lock.release(keys, claimed.mark);
      observe(failure.code);
      throw failure;
    }
    observe('settled');
    const amount = BigInt(requirement.amount);
    // Recorded before the reply, so no delivery goes out for a settlement reconciliation cannot see;
    // one script queues the record and marks the payment used (Postgres gets the record right after).
    // The payer is marked known beside it, sent with it (its key lies in another slot on a cluster).
    const recorded = this.records.record(
      {
        paymentId: claimed.paymentId,
        network: settled.network,
        transaction: settled.transaction,
        payer: settled.payer ?? '',
        amount,
        purpose: paidFor.purpose,
        route: paidFor.route,
        requestId: paidFor.requestId,
        resourceUrl: resource.url,
        settledAtMs: Date.now(),
      },
      keys,
      PaymentLock.used(Math.max(MIN_USED_MS, claimed.settleableUntilMs - Date.now())),
    );
    await Promise.all([recorded, this.payers.remember(requirement.network, claimed.payer)]);
    const receipt: X402Receipt = {
      paymentResponse: encodeX402Header({
        success: true,
        transaction: settled.transaction,
        network: settled.network,
        payer: settled.payer,
        ...(settled.amount ? { amount: settled.amount } : {}),
      }),
      network: settled.network,
      payer: settled.payer ?? '',
      transaction: settled.transaction,
    };
    return { receipt, amount };
  }

  /** Gives a held payment back after a failed call, so the same payload can buy the retry. */
  release(hold: X402Hold): Promise<boolean> {
    return this.lock.release(this.records.keyspace.keysOf(hold.paymentId), hold.claim);
  }

  private failure(error: unknown): WireException {
    const failure = facilitatorFailure(error);
    const down = failure.code === ErrorCode.FacilitatorUnavailable || failure.code === ErrorCode.FacilitatorUnreachable;
    if (down && !(error instanceof WireException)) this.logger.warn(`facilitator call failed: ${describe(error)}`);
    return failure;
  }
}

function replayed(refusal: ClaimRefusal): WireException {
  const message = {
    used: 'payment already used',
    held: 'payment already used',
    refused: 'payment already refused by the facilitator; sign a new one',
  }[refusal];
  return new WireException(ErrorCode.PaymentReplayed, message);
}
