import {
  acceptsKey,
  Subject,
  type X402AuthorizeRequest,
  type X402Hold,
  type X402Offer,
  type X402PayRequest,
  type X402Receipt,
  type X402ReleaseReply,
  type X402ReleaseRequest,
  type X402SettleRequest,
  type X402Requirement,
  type X402TopUpReply,
  type X402TopUpRequest,
} from '@appcat/contracts';
import type { RpcResult } from '@appcat/microservice';
import type { Context } from '@appcat/ops';
import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG } from '../config.provider.js';
import type { GatewayConfig } from '../config.js';
import { GATEWAY_RPC, type GatewayRpc } from '../nats-rpc.provider.js';

/** How long an `accepts` list is reused before payments is asked again. */
const ACCEPTS_TTL_MS = 60_000;

/**
 * Payments' x402 subjects over NATS: `accepts` lists, cached (an unpaid request, the cheapest thing to
 * flood us with, costs no round trip once the list is known); a call's payment authorized, settled or
 * released, or paid at once when the data is in hand; top-ups. `accepts` fails with an HttpError; a payment's outcome is a value, since a refused
 * payment is answered with a new challenge.
 */
@Injectable()
export class X402Rpc {
  private readonly accepted = new Map<string, { accepts: X402Requirement[]; until: number }>();

  constructor(
    @Inject(GATEWAY_RPC) private readonly rpc: GatewayRpc,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async accepts(offer: X402Offer, requestId: string): Promise<X402Requirement[]> {
    const key = acceptsKey(offer);
    const cached = this.accepted.get(key);
    if (cached && cached.until > Date.now()) return cached.accepts;
    const reply = await this.rpc.request(Subject.X402Accepts, { offer }, { requestId });
    if (this.accepted.size > 256) this.accepted.clear();
    this.accepted.set(key, { accepts: reply.accepts, until: Date.now() + ACCEPTS_TTL_MS });
    return reply.accepts;
  }

  /** Checks and claims a payment; may wait on the facilitator's /verify. `trace`: the parent of its span. */
  authorize(request: X402AuthorizeRequest, trace?: Context): Promise<RpcResult<X402Hold>> {
    return this.rpc.result(Subject.X402Authorize, request, {
      requestId: request.requestId,
      timeoutMs: this.config.x402PayTimeoutMs,
      trace,
    });
  }

  /** Checks, claims and settles a payment at once, for data already in hand; waits on the facilitator's settle. */
  pay(request: X402PayRequest, trace?: Context): Promise<RpcResult<X402Receipt>> {
    return this.rpc.result(Subject.X402Pay, request, {
      requestId: request.requestId,
      timeoutMs: this.config.x402PayTimeoutMs,
      trace,
    });
  }

  settle(request: X402SettleRequest, trace?: Context): Promise<RpcResult<X402Receipt>> {
    return this.rpc.result(Subject.X402Settle, request, {
      requestId: request.requestId,
      timeoutMs: this.config.x402PayTimeoutMs,
      trace,
    });
  }

  release(request: X402ReleaseRequest, requestId: string, trace?: Context): Promise<RpcResult<X402ReleaseReply>> {
    return this.rpc.result(Subject.X402Release, request, { requestId, trace });
  }

  topUp(request: X402TopUpRequest): Promise<RpcResult<X402TopUpReply>> {
    return this.rpc.result(Subject.CreditsTopUp, request, {
      requestId: request.requestId,
      timeoutMs: this.config.x402PayTimeoutMs,
    });
  }
}
