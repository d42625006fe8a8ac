import {
  acceptsKey,
  decodeX402Header,
  encodeX402Header,
  ErrorCode,
  offersNetworkSet,
  type NetworkSet,
  type X402Offer,
  type X402Receipt,
  type X402Requirement,
  type X402Resource,
} from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { createFacilitatorConfig } from '@coinbase/x402';
import type { FacilitatorConfig } from '@x402/core/http';
import { x402ResourceServer } from '@x402/core/server';
import {
  FacilitatorTimeoutError,
  type PaymentPayload,
  type PaymentRequirements,
  SettleError,
  type SettleResponse,
  VerifyError,
} from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { ExactSvmScheme } from '@x402/svm/exact/server';
import { setImmediate as nextCheckPhase } from 'node:timers/promises';
import { PaymentsMetrics } from '@appcat/ops';
import type { RedisClient } from '@appcat/redis';
import { PAYMENTS_REDIS, X402_CONFIG } from '../payments-tokens.js';
import { FacilitatorClient } from './facilitator-client.js';
import { PaymentLock } from './payment-lock.js';
import { paymentValidity } from './payment-validity.js';
import { type SettlementRecord, SettlementRecords } from './settlement-records.js';
import type { X402Config, X402Network } from './x402-config.js';

/** The largest `payment-signature` header accepted; real payloads are well under 4 KiB. */
const MAX_SIGNATURE_LENGTH = 16_384;
/** Cap on free text copied into a header (viem errors run to kilobytes). */
const MAX_REASON_LENGTH = 160;
const INIT_RETRY_MS = 2_000;
/**
 * The payment flow every requirement declares (`extra.paymentFlow`, @x402/core's `upfront`): the
 * payment is settled before anything is delivered, which is what the spec asks, and `/settle` is the
 * only facilitator call. The facilitator verifies a payload as part of settling it, so a separate
 * `/verify` first would only repeat that check, at the cost of a facilitator round trip (about a fifth
 * of an x402 call here; docs/benchmarks.md). @x402/core's verifyPayment then answers valid without the
 * facilitator, and a payload the facilitator refuses comes back from settle with its reason.
 */
const UPFRONT = { paymentFlow: 'upfront' } as const;

/** What a payment buys, kept with its settlement record. */
export interface PaidFor {
  purpose: SettlementRecord['purpose'];
  route: string;
  requestId: string;
}

export interface Settlement {
  receipt: X402Receipt;
  requirement: PaymentRequirements;
  amount: bigint;
}

/**
 * x402 v2 on the resource-server side, through the configured facilitator: builds the `accepts`
 * lists, and settles a payment (the facilitator verifying it as it settles) before anything is delivered. Built on @x402/core's
 * x402ResourceServer with the exact EVM and SVM schemes.
 */
@Injectable()
export class X402Payments implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('X402Payments');
  private readonly server: x402ResourceServer;
  private readonly lock: PaymentLock;
  private readonly facilitator: FacilitatorClient;
  private initialised: Promise<void> | null = null;
  private lastInitFailure = 0;
  private checked = false;
  private readonly stopping = new AbortController();
  private readonly acceptsCache = new Map<string, X402Requirement[]>();
  private readonly unsupportedWarned = new Set<string>();

  constructor(
    @Inject(X402_CONFIG) private readonly config: X402Config,
    @Inject(PAYMENTS_REDIS) redis: RedisClient,
    @Inject(PaymentsMetrics) private readonly metrics: PaymentsMetrics,
    /** Where each settlement is recorded for reconciliation. */
    @Inject(SettlementRecords) private readonly records: SettlementRecords,
  ) {
    this.facilitator = new FacilitatorClient({
      url: config.facilitatorUrl,
      timeoutMs: config.facilitatorTimeoutMs,
      observe: (operation, outcome, seconds) =>
        metrics.facilitatorRequestSeconds.observe({ operation, outcome }, seconds),
      createAuthHeaders: facilitatorAuthHeaders(config),
    });
    this.server = new x402ResourceServer(this.facilitator);
    for (const network of config.networks) {
      this.server.register(
        network.network as `${string}:${string}`,
        network.kind === 'evm' ? new ExactEvmScheme() : new ExactSvmScheme(),
      );
    }
    this.lock = new PaymentLock(redis);
  }

  /** Nest calls it as the app starts: the start-up check runs in the background from then on. */
  onModuleInit(): void {
    this.startFacilitatorCheck();
  }

  /**
   * Runs the start-up check (`checkFacilitator`) in the background; `facilitatorCheck` settles with it.
   * Readiness waits for it, and main fails start-up when it rejects.
   */
  startFacilitatorCheck(retryMs = INIT_RETRY_MS): void {
    this.facilitatorCheck = this.checkFacilitator(retryMs, this.stopping.signal);
    // main awaits it; a process that does not (a test of something else) must not crash on it.
    this.facilitatorCheck.catch((error: unknown) => this.logger.error(describe(error)));
  }

  /** Settles with the start-up check started by startFacilitatorCheck. */
  facilitatorCheck: Promise<void> = Promise.resolve();

  /** Whether the start-up check has read the facilitator's `/supported` and found every configured network there. */
  get facilitatorChecked(): boolean {
    return this.checked;
  }

  /**
   * The start-up check: reads the facilitator's `/supported`, retrying every `retryMs` while it cannot
   * be reached, and resolves once every configured network is supported. A network the facilitator does
   * not support rejects with an error naming the network and the facilitator, which fails start-up:
   * offering it would only take payments nobody can settle.
   */
  async checkFacilitator(retryMs = INIT_RETRY_MS, signal?: AbortSignal): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        // A fresh read: the lazy one used by `accepts` may have failed a moment ago.
        this.initialised = null;
        this.lastInitFailure = 0;
        await this.ensureInitialised();
        break;
      } catch {
        if (attempt === 1 || attempt % 10 === 0)
          this.logger.warn(
            `x402: waiting for the facilitator at ${this.config.facilitatorUrl} (/supported unreachable)`,
          );
        await pause(retryMs, signal);
        if (signal?.aborted)
          throw new Error(`x402: stopped waiting for the facilitator at ${this.config.facilitatorUrl}`);
      }
    }
    const missing = this.config.networks.filter(
      (n) => !this.server.getSupportedKind(2, n.network as `${string}:${string}`, 'exact'),
    );
    if (missing.length > 0) {
      const names = missing.map((n) => `${n.name} (${n.network})`).join(', ');
      const them = missing.length === 1 ? 'it' : 'them';
      throw new Error(
        `x402: the facilitator at ${this.config.facilitatorUrl} does not support ${names}: its /supported has no exact scheme there; ` +
          `use a facilitator that settles ${them}, or set X402_<NET>_PAY_TO=none to stop offering ${them}`,
      );
    }
    this.checked = true;
  }

  /** Nest calls it at shutdown: a start-up check still waiting gives up. */
  onApplicationShutdown(): void {
    this.stopping.abort();
  }

  /** The `accepts` list for an offer, in offer order; networks the facilitator does not support are left out. */
  async accepts(offer: X402Offer): Promise<X402Requirement[]> {
    const cacheKey = acceptsKey(offer);
    const cached = this.acceptsCache.get(cacheKey);
    if (cached) return cached;
    await this.ensureInitialised();
    const accepts: X402Requirement[] = [];
    for (const network of this.networksFor(offer.networks)) {
      try {
        const [requirement] = await this.server.buildPaymentRequirements({
          scheme: 'exact',
          network: network.network as `${string}:${string}`,
          payTo: network.payTo as string,
          price: {
            amount: offer.price,
            asset: network.asset,
            extra: network.kind === 'evm' ? { name: network.assetName, version: network.assetVersion } : {},
          },
          maxTimeoutSeconds: this.config.maxTimeoutSeconds,
          extra: UPFRONT,
        });
        accepts.push(requirement as X402Requirement);
      } catch (error) {
        if (!this.unsupportedWarned.has(network.network)) {
          this.unsupportedWarned.add(network.network);
          this.logger.warn(`x402 network ${network.name} (${network.network}) left out: ${describe(error)}`);
        }
      }
    }
    if (accepts.length === 0)
      throw new WireException(
        ErrorCode.FacilitatorUnavailable,
        'payment facilitator supports none of the configured networks',
      );
    if (this.acceptsCache.size > 256) this.acceptsCache.clear();
    this.acceptsCache.set(cacheKey, accepts);
    return accepts;
  }

  /**
   * Claims and settles a payment for `offer` on `resource`. Resolves only once the facilitator has
   * settled it; every refusal is a typed WireException whose message names the reason.
   */
  async settle(
    paymentSignature: string,
    offer: X402Offer,
    resource: X402Resource,
    paidFor: PaidFor,
  ): Promise<Settlement> {
    const payload = this.decode(paymentSignature);
    if (payload.resource?.url !== undefined && payload.resource.url !== resource.url) {
      throw invalid('payment was made for another resource');
    }
    const accepts = await this.accepts(offer);
    const requirement = this.server.findMatchingRequirements(accepts as PaymentRequirements[], payload);
    if (!requirement) throw invalid(mismatchReason(payload, accepts));

    // Refused here, before any facilitator request: a payload that cannot settle now, or could settle
    // after its replay lock is gone. The lock lives as long as the payload could settle.
    const kind = this.config.networks.find((network) => network.network === requirement.network)?.kind ?? 'evm';
    const validity = paymentValidity(kind, payload.payload, this.config.maxTimeoutSeconds);
    if (!validity.ok) throw invalid(validity.reason);
    const identity = PaymentLock.identify(requirement.network, payload.payload, paymentSignature);
    const keys = this.records.keyspace.keysOf(identity);
    const lockMs = validity.lockMs;
    const started = performance.now();
    // Only a claimed payload is settled: a facilitator answers a payload it is already settling with
    // that settlement's outcome, so two concurrent copies could otherwise both be delivered. The settle
    // request is built while the claim travels (it leaves on the next check phase: auto-pipelining),
    // and sent only once the claim is granted.
    const claiming = this.lock.claim(keys, lockMs);
    const preparing = nextCheckPhase().then(() => this.facilitator.prepareSettle(payload, requirement));
    const [claim] = await Promise.all([claiming, preparing.catch(() => undefined)]);
    if (!claim.claimed) {
      this.facilitator.discardPrepared(payload);
      throw new WireException(ErrorCode.PaymentReplayed, 'payment already used');
    }
    if (claim.degraded) this.logger.warn('payment lock unavailable (Redis down); relying on on-chain settlement alone');

    let settled: SettleResponse;
    const observe = (outcome: string) =>
      this.metrics.settlementSeconds.observe(
        { network: requirement.network, outcome },
        (performance.now() - started) / 1000,
      );
    try {
      // Under the upfront flow this asks the facilitator nothing (settle verifies); it runs @x402/core's hooks.
      const verified = await this.server.verifyPayment(payload, requirement);
      if (!verified.isValid) throw invalid(`payment rejected: ${verified.invalidReason ?? 'invalid'}`);
      settled = await this.server.settlePayment(payload, requirement);
      if (!settled.success)
        throw new WireException(
          ErrorCode.PaymentSettlementFailed,
          `settlement failed: ${trim(settled.errorReason ?? 'unknown reason')}`,
        );
    } catch (error) {
      // A payload that bought nothing can be retried; one whose settlement may have happened cannot.
      if (!(error instanceof FacilitatorTimeoutError)) await this.lock.release(keys);
      const failure = this.failure(error);
      observe(failure.code);
      throw failure;
    } finally {
      // Unsent if the payment was refused before settling, or settled through another request.
      this.facilitator.discardPrepared(payload);
    }
    observe('settled');
    // Recorded before the reply, so no delivery goes out for a settlement reconciliation cannot see;
    // one script queues the record and marks the payment used (Postgres gets the record right after).
    await this.records.record(
      {
        paymentId: identity,
        network: settled.network,
        transaction: settled.transaction,
        payer: settled.payer ?? '',
        amount: BigInt(requirement.amount),
        purpose: paidFor.purpose,
        route: paidFor.route,
        requestId: paidFor.requestId,
        resourceUrl: resource.url,
        settledAtMs: Date.now(),
      },
      keys,
      PaymentLock.used(lockMs),
    );
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
    return { receipt, requirement, amount: BigInt(requirement.amount) };
  }

  private networksFor(set: NetworkSet): X402Network[] {
    return this.config.networks.filter((network) => offersNetworkSet(set, network.set));
  }

  private decode(header: string): PaymentPayload {
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

  private async ensureInitialised(): Promise<void> {
    if (this.initialised) return this.initialised;
    if (Date.now() - this.lastInitFailure < INIT_RETRY_MS) {
      throw new WireException(ErrorCode.FacilitatorUnavailable, 'payment facilitator unreachable');
    }
    this.initialised = this.server.initialize().catch((error: unknown) => {
      this.initialised = null;
      this.lastInitFailure = Date.now();
      this.logger.warn(`facilitator /supported failed: ${describe(error)}`);
      throw new WireException(ErrorCode.FacilitatorUnavailable, 'payment facilitator unreachable');
    });
    return this.initialised;
  }

  private failure(error: unknown): WireException {
    if (error instanceof WireException) return error;
    if (error instanceof VerifyError) return invalid(`payment rejected: ${trim(error.invalidReason ?? 'invalid')}`);
    if (error instanceof SettleError) {
      return new WireException(
        ErrorCode.PaymentSettlementFailed,
        `settlement failed: ${trim(error.errorReason ?? 'unknown reason')}`,
      );
    }
    if (error instanceof FacilitatorTimeoutError) {
      return new WireException(
        ErrorCode.FacilitatorUnavailable,
        'payment facilitator did not answer in time; the payment may have settled',
      );
    }
    this.logger.warn(`facilitator call failed: ${describe(error)}`);
    return new WireException(ErrorCode.FacilitatorUnavailable, 'payment facilitator unreachable');
  }
}

/**
 * The auth headers each facilitator request carries: for CDP, short-lived JWTs signed with the CDP API
 * key, made by Coinbase's own @coinbase/x402 (createFacilitatorConfig) so they match what CDP checks;
 * otherwise the static bearer token, if any.
 */
function facilitatorAuthHeaders(config: X402Config): FacilitatorConfig['createAuthHeaders'] {
  if (config.facilitator === 'cdp' && config.cdpApiKey)
    return createFacilitatorConfig(config.cdpApiKey.id, config.cdpApiKey.secret).createAuthHeaders;
  const token = config.facilitatorAuthToken;
  if (!token) return undefined;
  return async () => {
    const headers = { Authorization: `Bearer ${token}` };
    return { verify: headers, settle: headers, supported: headers };
  };
}

/** Waits `ms`, or less if `signal` aborts; holds no process open. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    timer.unref();
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

function invalid(message: string): WireException {
  return new WireException(ErrorCode.PaymentInvalid, trim(message));
}

/** Says which field of the payment does not meet any offered requirement. */
function mismatchReason(payload: PaymentPayload, accepts: X402Requirement[]): string {
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

function trim(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_REASON_LENGTH ? `${oneLine.slice(0, MAX_REASON_LENGTH - 1)}…` : oneLine;
}

function describe(error: unknown): string {
  return trim(error instanceof Error ? error.message : String(error));
}
