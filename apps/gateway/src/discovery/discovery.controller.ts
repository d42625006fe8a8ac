import { DOCUMENT_PATHS } from '@appcat/api-docs';
import { Controller, Get, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DiscoveryDocuments, type StaticDocument } from './discovery-documents.js';
import { X402DiscoveryService } from './x402-discovery.service.js';

/** Documents change only with a deploy; a short cache keeps crawlers cheap without serving stale prices for long. */
const CACHE_CONTROL = 'public, max-age=300';

/**
 * The informational addresses, free of charge: /openapi.json, /index.md, /skill.md, /llms.txt from
 * memory, and /.well-known/x402 (also at /.well-known/x402.json) with the live accepts lists. They are documents, not API answers, so
 * they are served as they are rather than inside the envelope; their failures still are envelopes.
 */
@Controller()
export class DiscoveryController {
  constructor(
    private readonly docs: DiscoveryDocuments,
    private readonly x402Discovery: X402DiscoveryService,
  ) {}

  @Get(DOCUMENT_PATHS.openapi.slice(1))
  openapi(@Res() reply: FastifyReply): void {
    this.send(reply, DOCUMENT_PATHS.openapi);
  }

  @Get(DOCUMENT_PATHS.catalogue.slice(1))
  catalogue(@Res() reply: FastifyReply): void {
    this.send(reply, DOCUMENT_PATHS.catalogue);
  }

  @Get(DOCUMENT_PATHS.skill.slice(1))
  skill(@Res() reply: FastifyReply): void {
    this.send(reply, DOCUMENT_PATHS.skill);
  }

  @Get(DOCUMENT_PATHS.llms.slice(1))
  llms(@Res() reply: FastifyReply): void {
    this.send(reply, DOCUMENT_PATHS.llms);
  }

  // The same document at both paths: /.well-known/x402 (what crawlers such as x402scan read) and the draft's /.well-known/x402.json.
  @Get([DOCUMENT_PATHS.x402Discovery.slice(1), DOCUMENT_PATHS.x402DiscoveryJson.slice(1)])
  async x402(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const document = await this.x402Discovery.document(request.id);
    // The accepts lists are cached for a minute; so may the document be.
    reply
      .code(200)
      .type('application/json; charset=utf-8')
      .header('cache-control', 'public, max-age=60')
      .send(JSON.stringify(document, null, 2));
  }

  private send(reply: FastifyReply, path: string): void {
    const document = this.docs.documents.find((d: StaticDocument) => d.path === path)!;
    reply.code(200).type(document.contentType).header('cache-control', CACHE_CONTROL).send(document.body);
  }
}
