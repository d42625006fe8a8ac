import {
  type CatalogPeekReply,
  type CatalogQuery,
  type CatalogReply,
  type CatalogUnavailable,
  CATALOG_SUBJECTS,
  parseCatalogRequest,
  type StoreId,
} from '@appcat/contracts';
import { BatchResults, handleBatchItems, inRequestTrace, JsonTextReply } from '@appcat/microservice';
import { activeContext, CatalogMetrics } from '@appcat/ops';
import { ROUTE_TABLES } from '@appcat/routes';
import { Controller, Inject, type Type } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { listJson } from './cache/json-source.js';
import { NotCachedError, type Provenance, ProvenanceTrace } from './cache/provenance.js';
import { CATALOG_CONFIG } from './catalog-tokens.js';
import type { CatalogConfig } from './config.js';
import { FetchBudget } from './fetch-budget.js';
import { UpstreamAvailability } from './upstream/upstream-availability.js';
import { isUnreadableAnswer } from './upstream/upstream-failures.js';
import { fetchFromStore, type ListData, STORE_ADAPTER, type StoreAdapter } from './store/store-adapter.js';

/**
 * The catalog's answers to the gateway. The subjects it listens on are its store's
 * ({@link catalogControllerFor}), so each store's catalog scales on its own.
 */
export class CatalogController {
  constructor(
    @Inject(CATALOG_CONFIG) private readonly config: CatalogConfig,
    @Inject(STORE_ADAPTER) private readonly store: StoreAdapter,
    @Inject(CatalogMetrics) private readonly metrics: CatalogMetrics,
    @Inject(FetchBudget) private readonly budget: FetchBudget,
    @Inject(UpstreamAvailability) private readonly availability: UpstreamAvailability,
  ) {}

  async fetch(@Payload() request: unknown): Promise<JsonTextReply<CatalogReply>> {
    const query = queryOf(request);
    const trace = new ProvenanceTrace(false, activeContext());
    let result: ListData;
    try {
      result = await this.budget.run(() => fetchFromStore(this.store, query, trace));
    } catch (error) {
      this.countUnreadable(query, error);
      throw error;
    }
    const provenance = trace.provenance();
    return this.reply(query, provenance.source ?? 'upstream', result, provenance);
  }

  /**
   * `catalog.peek`: the answer `catalog.fetch` would give, built from fresh cache entries only, or null.
   * The gateway asks while a call is still being charged; since nothing here reaches the upstream, a
   * call that then fails to pay has cost one cache read. It takes no slot of the fetch budget: it never
   * waits on the upstream.
   *
   * On a miss with no copy held, fresh or stale, it says whether the upstream the missing resource
   * needs is unavailable now (breaker open, or rate budget spent): the gateway then refuses the call
   * before charging for it, since the fetch could only fail.
   */
  async peek(@Payload() request: unknown): Promise<JsonTextReply<CatalogReply> | CatalogUnavailable | null> {
    const query = queryOf(request);
    const trace = new ProvenanceTrace(true, activeContext());
    try {
      const result = await fetchFromStore(this.store, query, trace);
      return this.reply(query, 'cache', result, trace.provenance());
    } catch (error) {
      // A miss is no answer: the fetch that follows the charge is counted instead.
      if (error instanceof NotCachedError) return error.staleHeld ? null : this.unavailable(error.key);
      throw error;
    }
  }

  /**
   * An answer we could not read reaches the caller as a 502: counted per route, as drift to look into.
   * One served from a stale copy instead is not counted here; `npm run upstream:check` finds those.
   */
  private countUnreadable(query: CatalogQuery, error: unknown): void {
    if (!isUnreadableAnswer(error)) return;
    const route = ROUTE_TABLES[this.config.store].routes.find((r) => r.id === query.route);
    if (route) this.metrics.upstreamUnreadable.inc({ route: route.path });
  }

  /**
   * Whether every upstream a missing resource can be loaded from is known to be unavailable now: one
   * source still open may answer. Said as the one that opens first says it.
   */
  private async unavailable(resourceKey: string): Promise<CatalogUnavailable | null> {
    const upstreams = this.store.upstreamsOf?.(resourceKey) ?? [];
    if (upstreams.length === 0) return null;
    const each = await Promise.all(upstreams.map((upstream) => this.availability.unavailable(upstream)));
    if (each.some((reply) => reply === null)) return null;
    const closed = each as CatalogUnavailable[];
    return closed.reduce((soonest, reply) =>
      reply.unavailable.retryAfterSeconds < soonest.unavailable.retryAfterSeconds ? reply : soonest,
    );
  }

  /**
   * `catalog.peek.batch`: several peeks from one gateway loop turn, each answered as `catalog.peek`
   * would answer it alone (null for a miss; an item's error is that item's own).
   */
  async peekBatch(@Payload() request: unknown): Promise<BatchResults<CatalogPeekReply>> {
    const peeked = (item: unknown) =>
      this.peek(item).then((reply) => (reply instanceof JsonTextReply ? reply.toValue() : reply));
    return new BatchResults(await handleBatchItems(request, peeked));
  }

  private reply(
    query: CatalogQuery,
    source: NonNullable<CatalogReply['source']>,
    result: ListData,
    provenance: Provenance,
  ): JsonTextReply<CatalogReply> {
    this.metrics.cache.inc({ kind: query.route, result: source });
    const dataJson = listJson(result);
    // The fields in the order callers have always had them: source, then the age when there is one.
    const { ageSeconds, ageMs, freshForMs, upstreamSource } = provenance;
    const reply: CatalogReply = ageSeconds === undefined ? { dataJson, source } : { dataJson, source, ageSeconds };
    if (freshForMs !== undefined) Object.assign(reply, { ageMs, freshForMs });
    if (upstreamSource !== undefined) reply.upstreamSource = upstreamSource;
    return JsonTextReply.of<CatalogReply>(reply, 'dataJson');
  }
}

const STORE_CONTROLLERS = new Map<StoreId, Type<CatalogController>>();

/**
 * The controller of `store` (one class per store, also the token to get it from the app by):
 * {@link CatalogController} on that store's subjects, in its queue group.
 */
export function catalogControllerFor(store: StoreId): Type<CatalogController> {
  const known = STORE_CONTROLLERS.get(store);
  if (known) return known;
  const { fetch, peek, peekBatch, queue } = CATALOG_SUBJECTS[store];

  @Controller()
  class StoreCatalogController extends CatalogController {
    @MessagePattern(fetch, { queue })
    override fetch(@Payload() request: unknown) {
      return inRequestTrace(request, () => super.fetch(request));
    }

    @MessagePattern(peek, { queue })
    override peek(@Payload() request: unknown) {
      return inRequestTrace(request, () => super.peek(request));
    }

    @MessagePattern(peekBatch, { queue })
    override peekBatch(@Payload() request: unknown) {
      return super.peekBatch(request);
    }
  }
  STORE_CONTROLLERS.set(store, StoreCatalogController);
  return StoreCatalogController;
}

function queryOf(request: unknown): CatalogQuery {
  return parseCatalogRequest(request).query;
}
