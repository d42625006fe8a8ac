import { formatUsd, parseMicros, topUpOffer, type X402TopUpRequest } from '@appcat/contracts';
import { Controller, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GATEWAY_CONFIG } from '../config.provider.js';
import type { GatewayConfig } from '../config.js';
import { OK_MESSAGE, envelope, type Envelope } from '../envelope/envelope.js';
import { PAYMENT_RESPONSE_HEADER, PaymentChallenge } from '../payment/payment-challenge.js';
import {
  readBearerKeyHash,
  readPaymentCredentials,
  readPaymentSignature,
  requireKeyHash,
} from '../payment/payment-credentials.js';
import { X402Checkout } from '../payment/x402-checkout.js';
import { topUpCallName } from '../idempotency/call-names.js';
import { type CallOutcome, RememberedCalls } from '../idempotency/remembered-calls.js';
import type { Charge } from '../priced/priced-result.js';
import { requestTrace } from '../http/request-spans.js';
import { CreditsClient } from './credits.client.js';
import { readTopUpAmount } from './top-up-amount.js';

/** A new key is shown once; this travels with it. */
export const NEW_KEY_WARNING = 'Store this key now: it is shown only this once and cannot be recovered.';

/** The credit routes: the free balance read, and top-ups paid with x402. */
@Controller('api/credits')
export class CreditsController {
  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly credits: CreditsClient,
    private readonly challenge: PaymentChallenge,
    private readonly x402: X402Checkout,
    private readonly remembered: RememberedCalls,
  ) {}

  /** The key's remaining balance in USD with six decimals, e.g. "4.997000". Free. */
  @Get('balance')
  @HttpCode(200)
  async balance(@Req() request: FastifyRequest): Promise<Envelope> {
    const keyHash = requireKeyHash(readPaymentCredentials(request.headers));
    const balance = await this.credits.balance(keyHash, request.id, requestTrace(request));
    return envelope(200, OK_MESSAGE, { balance: formatUsd(balance), currency: 'USD' });
  }

  /**
   * Buys `amount` USD of credit with an x402 payment of exactly that amount. Without a key it issues a
   * new one holding the amount (shown once); with `Authorization: Bearer <key>` it recharges that key.
   * A payment carrying a `payment-identifier` is remembered with its answer, like a priced call's.
   */
  @Post('topup')
  @HttpCode(200)
  async topUp(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<Envelope> {
    const amount = readTopUpAmount((request.query as Record<string, string | string[] | undefined>).amount);
    const authorization = request.headers.authorization;
    const keyHash = authorization === undefined ? undefined : readBearerKeyHash(authorization);
    const resource = {
      url: this.config.publicBaseUrl + request.url,
      description: `Prepaid credit for the App Store catalog: USD ${formatUsd(amount)}${keyHash ? ' added to your key' : ' on a new API key'}`,
      mimeType: 'application/json',
    };
    const paymentSignature = readPaymentSignature(request.headers);
    if (paymentSignature === undefined) throw await this.challenge.required(topUpOffer(amount), resource, request.id);

    const top: X402TopUpRequest = {
      paymentSignature,
      amount: amount.toString(),
      resource,
      keyHash,
      requestId: request.id,
    };
    // A retry with the same payment-identifier and payload is the same purchase: it gets the first
    // answer again (the new key too; the record keeps it sealed), settled once.
    const name = topUpCallName(paymentSignature, amount, keyHash);
    const bought = await this.remembered.run(name, request.id, () => this.buy(top));
    if (!bought.ok) throw bought.error;
    reply.header(PAYMENT_RESPONSE_HEADER, bought.answer.charge.receipt.paymentResponse);
    return envelope(200, OK_MESSAGE, bought.answer.data);
  }

  /** Settles the top-up and credits it: the answer's `data`, with the settlement's receipt. */
  private async buy(top: X402TopUpRequest): Promise<CallOutcome<TopUpAnswer>> {
    const result = await this.x402.topUp(top);
    const balance = formatUsd(parseMicros(result.balance));
    const data: Record<string, string> = result.key
      ? { apiKey: result.key, prefix: result.prefix, balance, currency: 'USD', warning: NEW_KEY_WARNING }
      : { prefix: result.prefix, balance, currency: 'USD', credited: formatUsd(parseMicros(top.amount)) };
    return { ok: true, answer: { charge: { method: 'x402', receipt: result.receipt }, data } };
  }
}

/** A top-up's answer: the new key (shown once) or the recharged key's prefix, and the balance; paid with x402. */
interface TopUpAnswer {
  charge: Extract<Charge, { method: 'x402' }>;
  data: Record<string, string>;
}
