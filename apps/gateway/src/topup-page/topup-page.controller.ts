import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { GATEWAY_CONFIG } from '../config.provider.js';
import type { GatewayConfig } from '../config.js';
import { HttpError, Messages } from '../errors/http-error.js';
import { loadTopUpPage, type PageAsset, topUpSecurityHeaders } from './topup-page-assets.js';

/**
 * GET /topup: the page where a person buys credit with a browser wallet, and GET /topup/<file> for
 * its script and style. Free, and HTML rather than the envelope (a page, not an API answer); an
 * unknown file is the usual 404 envelope.
 */
@Controller('topup')
export class TopUpPageController {
  private readonly files: ReturnType<typeof loadTopUpPage>;
  private readonly headers: Readonly<Record<string, string>>;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.files = loadTopUpPage(config.topupSolanaRpcUrl);
    this.headers = topUpSecurityHeaders(config.topupSolanaRpcUrl);
  }

  @Get()
  page(@Res() reply: FastifyReply): void {
    send(reply, this.files.page, this.headers);
  }

  @Get(':file')
  asset(@Param('file') file: string, @Res() reply: FastifyReply): void {
    const asset = this.files.assets.get(file);
    if (!asset) throw new HttpError(404, Messages.notFound);
    send(reply, asset, this.headers);
  }
}

function send(reply: FastifyReply, asset: PageAsset, headers: Readonly<Record<string, string>>): void {
  reply.code(200).headers(headers).type(asset.contentType).send(asset.body);
}
