import { type CatalogPeekReply, type CatalogQuery, type CatalogReply, type CatalogRequest, Subject } from '@appcat/contracts';
import { type NatsRpcClient, RpcCallError } from '@appcat/microservice';
import { Inject, Injectable } from '@nestjs/common';
import { httpErrorFor } from '../errors/http-status.js';
import { NATS_RPC } from '../nats-rpc.provider.js';

/** Catalogue data from the catalog service over NATS. Failures come out as HttpErrors (502 for upstream). */
@Injectable()
export class CatalogClient {
  constructor(@Inject(NATS_RPC) private readonly nats: NatsRpcClient) {}

  async fetch(query: CatalogQuery, requestId: string): Promise<CatalogReply> {
    const request: CatalogRequest = { query, requestId };
    try {
      return await this.nats.request<CatalogReply>(Subject.CatalogFetch, request, { service: 'catalog', requestId });
    } catch (error) {
      if (error instanceof RpcCallError) throw httpErrorFor(error.code, error.message);
      throw error;
    }
  }

  /**
   * The answer if the catalog's cache holds it fresh; on a miss, null, or what makes the call
   * undeliverable now (upstream unavailable, no copy held). Never asks the upstream. Never fails:
   * any trouble (catalog unreachable, an older catalog without `catalog.peek`) is a miss, and the full
   * fetch that follows reports what is wrong.
   */
  async peek(query: CatalogQuery, requestId: string): Promise<CatalogPeekReply> {
    const request: CatalogRequest = { query, requestId };
    try {
      return await this.nats.request<CatalogPeekReply>(Subject.CatalogPeek, request, { service: 'catalog', requestId });
    } catch {
      return null;
    }
  }
}
