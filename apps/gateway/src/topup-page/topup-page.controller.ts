import { Controller, Get, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HttpError, Messages } from '../errors/http-error.js';
import { loadTopUpPage, type PageAsset, TOPUP_SECURITY_HEADERS } from './topup-page-assets.js';

/**
 * GET /topup: the page where a person buys credit with a browser wallet, and GET /topup/<file> for
 * its script and style. Free, and HTML rather than the envelope (a page, not an API answer); an
 * unknown file is the usual 404 envelope.
 */
@Controller('topup')
export class TopUpPageController {
  private readonly files = loadTopUpPage();

  @Get()
  page(@Res() reply: FastifyReply): void {
    send(reply, this.files.page);
  }

  @Get(':file')
  asset(@Param('file') file: string, @Res() reply: FastifyReply): void {
    const asset = this.files.assets.get(file);
    if (!asset) throw new HttpError(404, Messages.notFound);
    send(reply, asset);
  }
}

function send(reply: FastifyReply, asset: PageAsset): void {
  reply.code(200).headers(TOPUP_SECURITY_HEADERS).type(asset.contentType).send(asset.body);
}
