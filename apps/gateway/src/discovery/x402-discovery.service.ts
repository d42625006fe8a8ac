import { buildX402Discovery, type X402DiscoveryDocument } from '@appcat/api-docs';
import { acceptsKey, routeOffer, type X402Requirement } from '@appcat/contracts';
import { ROUTE_TABLES } from '@appcat/routes';
import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG } from '../config.provider.js';
import type { GatewayConfig } from '../config.js';
import { X402Rpc } from '../payment/x402-rpc.js';

/**
 * /.well-known/x402: the paid resources with the `accepts` lists their 402 challenges carry, fetched
 * the same way (from payments over NATS, through the gateway's one-minute cache), so the document and
 * the challenge cannot disagree.
 */
@Injectable()
export class X402DiscoveryService {
  /** When the documents were generated: the routes and prices do not change while the process runs. */
  private readonly generatedAt = new Date();

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly x402: X402Rpc,
  ) {}

  async document(requestId: string): Promise<X402DiscoveryDocument> {
    const accepts = new Map<string, X402Requirement[]>();
    const table = ROUTE_TABLES[this.config.store];
    for (const route of table.routes) {
      const offer = routeOffer(route);
      const key = acceptsKey(offer);
      if (!accepts.has(key)) accepts.set(key, await this.x402.accepts(offer, requestId));
    }
    return buildX402Discovery(
      this.config.publicBaseUrl,
      (route) => accepts.get(acceptsKey(routeOffer(route))) ?? [],
      this.generatedAt,
      table,
    );
  }
}
