import { type CatalogQuery, type CatalogReply, type CatalogRequest, Subject } from '@appcat/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_RPC, type GatewayRpc } from '../nats-rpc.provider.js';

/** Catalogue data from the catalog service over NATS. Failures come out as HttpErrors (502 for upstream). */
@Injectable()
export class CatalogClient {
  constructor(@Inject(GATEWAY_RPC) private readonly rpc: GatewayRpc) {}

  fetch(query: CatalogQuery, requestId: string): Promise<CatalogReply> {
    const request: CatalogRequest = { query, requestId };
    return this.rpc.request(Subject.CatalogFetch, request, { requestId });
  }

  /**
   * The answer if the catalog's cache holds it fresh, else null; never asks the upstream. Never fails:
   * any trouble (catalog unreachable, an older catalog without `catalog.peek`) is a miss, and the full
   * fetch that follows reports what is wrong.
   */
  async peek(query: CatalogQuery, requestId: string): Promise<CatalogReply | null> {
    const request: CatalogRequest = { query, requestId };
    const peeked = await this.rpc.result(Subject.CatalogPeek, request, { requestId });
    return peeked.ok ? peeked.value : null;
  }
}
