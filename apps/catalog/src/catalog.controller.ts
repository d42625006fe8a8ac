import { type CatalogReply, type CatalogRequest, ErrorCode, QueueGroup, Subject } from '@appcat/contracts';
import { JsonTextReply, WireException } from '@appcat/microservice';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { traceProvenance } from './cache/provenance.js';
import { listJson } from './cache/json-source.js';
import { CatalogOps } from './catalog-ops.js';
import { FetchBudget } from './fetch-budget.js';
import { fetchFromStore, STORE_ADAPTER, type StoreAdapter } from './store/store-adapter.js';

@Controller()
export class CatalogController {
  constructor(
    @Inject(STORE_ADAPTER) private readonly store: StoreAdapter,
    @Inject(CatalogOps) private readonly ops: CatalogOps,
    @Inject(FetchBudget) private readonly budget: FetchBudget,
  ) {}

  @MessagePattern(Subject.CatalogFetch, { queue: QueueGroup.Catalog })
  async fetch(@Payload() request: CatalogRequest): Promise<JsonTextReply<CatalogReply>> {
    if (typeof request?.query?.route !== 'string') throw new WireException(ErrorCode.InvalidArgument, 'catalog request without a query');
    const { result, provenance } = await this.budget.run(() => traceProvenance(() => fetchFromStore(this.store, request.query)));
    this.ops.metrics.cache.inc({ kind: request.query.route, result: provenance.source ?? 'upstream' });
    return JsonTextReply.of<CatalogReply>({ dataJson: listJson(result), ...provenance }, 'dataJson');
  }
}
