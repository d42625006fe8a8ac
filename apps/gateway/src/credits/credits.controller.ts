import { formatUsd, parseMicros, topUpOffer } from '@appcat/contracts';
import { Controller, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GATEWAY_CONFIG } from '../config.provider.js';
import type { GatewayConfig } from '../config.js';
import { OK_MESSAGE, envelope, type Envelope } from '../envelope/envelope.js';
import { HttpError } from '../errors/http-error.js';
import { PAYMENT_RESPONSE_HEADER, PaymentChallenge } from '../payment/payment-challenge.js';
import { PAYMENT_SIGNATURE_HEADER, readBearerKeyHash, readPaymentCredentials } from '../payment/payment-credentials.js';
import { X402PaymentService } from '../payment/x402-payment.service.js';
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
    private readonly x402: X402PaymentService,
  ) {}

  /** The key's remaining balance in USD with six decimals, e.g. "4.997000". Free. */
  @Get('balance')
  @HttpCode(200)
  async balance(@Req() request: FastifyRequest): Promise<Envelope> {
    const credentials = readPaymentCredentials(request.headers);
    if (credentials.kind !== 'credits') throw new HttpError(401, 'an api key is required: Authorization: Bearer <api key>');
    const balance = await this.credits.balance(credentials.keyHash, request.id);
    return envelope(200, OK_MESSAGE, { balance: formatUsd(balance), currency: 'USD' });
  }

  /**
   * Buys `amount` USD of credit with an x402 payment of exactly that amount. Without a key it issues a
   * new one holding the amount (shown once); with `Authorization: Bearer <key>` it recharges that key.
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
    const signature = request.headers[PAYMENT_SIGNATURE_HEADER];
    if (signature === undefined) throw await this.challenge.required(topUpOffer(amount), resource, request.id);

    const result = await this.x402.topUp({
      paymentSignature: Array.isArray(signature) ? signature.join(',') : signature,
      amount: amount.toString(),
      resource,
      keyHash,
      requestId: request.id,
    });
    reply.header(PAYMENT_RESPONSE_HEADER, result.receipt.paymentResponse);
    const balance = formatUsd(parseMicros(result.balance));
    return envelope(
      200,
      OK_MESSAGE,
      result.key
        ? { apiKey: result.key, prefix: result.prefix, balance, currency: 'USD', warning: NEW_KEY_WARNING }
        : { prefix: result.prefix, balance, currency: 'USD', credited: formatUsd(amount) },
    );
  }
}
