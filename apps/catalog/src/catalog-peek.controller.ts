import { type CatalogReply, type CatalogRequest, ErrorCode, QueueGroup, Subject } from '@appcat/contracts';
import { JsonTextReply, WireException } from '@appcat/microservice';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { NotCachedError, traceProvenance } from './cache/provenance.js';
import { listJson } from './cache/json-source.js';
import { CatalogOps } from './catalog-ops.js';
import { fetchFromStore, STORE_ADAPTER, type StoreAdapter } from './store/store-adapter.js';

/**
 * `catalog.peek`: the answer `catalog.fetch` would give, built from fresh cache entries only, or null.
 * The gateway asks while a call is still being charged; since nothing here reaches the upstream, a
 * call that then fails to pay has cost one cache read. It takes no slot of the fetch budget: it never
 * waits on the upstream.
 */
@Controller()
export class CatalogPeekController {
  constructor(
    @Inject(STORE_ADAPTER) private readonly store: StoreAdapter,
    @Inject(CatalogOps) private readonly ops: CatalogOps,
  ) {}

  @MessagePattern(Subject.CatalogPeek, { queue: QueueGroup.Catalog })
  async peek(@Payload() request: CatalogRequest): Promise<JsonTextReply<CatalogReply> | null> {
    if (typeof request?.query?.route !== 'string') throw new WireException(ErrorCode.InvalidArgument, 'catalog request without a query');
    try {
      const { result, provenance } = await traceProvenance(() => fetchFromStore(this.store, request.query), Date.now, { cacheOnly: true });
      // An answer from the cache; a miss is no answer (the fetch after the charge is counted instead).
      this.ops.metrics.cache.inc({ kind: request.query.route, result: 'cache' });
      return JsonTextReply.of<CatalogReply>({ dataJson: listJson(result), ...provenance, source: 'cache' }, 'dataJson');
    } catch (error) {
      if (!(error instanceof NotCachedError)) throw error;
      return null;
    }
  }
}
