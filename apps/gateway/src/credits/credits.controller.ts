import { formatUsd } from '@appcat/contracts';
import { Controller, Get, HttpCode, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { OK_MESSAGE, envelope, type Envelope } from '../envelope/envelope.js';
import { HttpError } from '../errors/http-error.js';
import { readPaymentCredentials } from '../payment/payment-credentials.js';
import { CreditsClient } from './credits.client.js';

/** The free credit routes. */
@Controller('api/credits')
export class CreditsController {
  constructor(private readonly credits: CreditsClient) {}

  /** The key's remaining balance in USD with six decimals, e.g. "4.997000". Free. */
  @Get('balance')
  @HttpCode(200)
  async balance(@Req() request: FastifyRequest): Promise<Envelope> {
    const credentials = readPaymentCredentials(request.headers);
    if (credentials.kind !== 'credits') throw new HttpError(401, 'an api key is required: Authorization: Bearer <api key>');
    const balance = await this.credits.balance(credentials.keyHash, request.id);
    return envelope(200, OK_MESSAGE, { balance: formatUsd(balance), currency: 'USD' });
  }
}
