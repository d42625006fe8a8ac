import {
  type CatalogPeekReply,
  type CatalogQuery,
  type CatalogReply,
  type CatalogRequest,
  CATALOG_SUBJECTS,
  type CatalogSubjects,
  isCatalogUnavailable,
} from '@appcat/contracts';
import { httpErrorFor } from '../errors/http-status.js';
import { type Context, GatewayMetrics } from '@appcat/ops';
import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG } from '../config.provider.js';
import type { GatewayConfig } from '../config.js';
import { GATEWAY_RPC, type GatewayRpc } from '../nats-rpc.provider.js';
import { NearCache } from './near-cache.js';

/**
 * Catalogue data from the catalog service over NATS, or from the near cache for a query answered a
 * moment ago. Failures come out as HttpErrors (502 for upstream). `trace`: the parent of a request's
 * span (the call's, when it is traced).
 */
@Injectable()
export class CatalogClient {
  /** Answers served a moment ago (see NearCache): a hot query's peek is answered here, without a hop. */
  private readonly recent: NearCache;
  private readonly nearHits: { inc(): void };
  private readonly nearMisses: { inc(): void };
  /** The catalog of this address's store. */
  private readonly subjects: CatalogSubjects;

  constructor(
    @Inject(GATEWAY_RPC) private readonly rpc: GatewayRpc,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(GatewayMetrics) private readonly metrics: GatewayMetrics,
  ) {
    this.subjects = CATALOG_SUBJECTS[config.store];
    this.recent = new NearCache(config.nearCacheMs, config.nearCacheMaxBytes);
    // Bound once: a labelled inc() hashes its labels on every call, and a read happens on every call.
    this.nearHits = metrics.nearCacheReads.labels({ outcome: 'hit' });
    this.nearMisses = metrics.nearCacheReads.labels({ outcome: 'miss' });
  }

  async fetch(query: CatalogQuery, requestId: string, trace?: Context): Promise<CatalogReply> {
    const request: CatalogRequest = { query, requestId };
    const sentAt = Date.now();
    const reply = await this.rpc.request(this.subjects.fetch, request, { requestId, trace });
    this.remember(query, reply, sentAt);
    return reply;
  }

  /** The answer this gateway served a moment ago (the near cache), with no hop; undefined when it holds none. */
  near(query: CatalogQuery): CatalogReply | undefined {
    if (!this.recent.enabled) return undefined;
    const near = this.recent.get(query);
    (near ? this.nearHits : this.nearMisses).inc();
    return near;
  }

  /**
   * The answer if the catalog's cache holds it fresh; on a miss, null, or what makes the call
   * undeliverable now (upstream unavailable, no copy held). Never asks the upstream. Never fails:
   * any trouble (catalog unreachable, an older catalog without `catalog.peek`) is a miss, and the full
   * fetch that follows reports what is wrong.
   */
  async peek(query: CatalogQuery, requestId: string, trace?: Context): Promise<CatalogPeekReply> {
    const request: CatalogRequest = { query, requestId };
    const sentAt = Date.now();
    const peeked = await this.rpc.result(this.subjects.peek, request, { requestId, trace });
    if (!peeked.ok || peeked.value === null) return null;
    if (!isCatalogUnavailable(peeked.value)) this.remember(query, peeked.value, sentAt);
    return peeked.value;
  }

  /**
   * The data a peek read ahead, or, on a miss, the upstream's through `fetch`; a peek that reported the
   * upstream unavailable is a 502 naming it, with Retry-After, and asks nothing more.
   */
  async answer(
    peeked: CatalogPeekReply,
    query: CatalogQuery,
    requestId: string,
    trace?: Context,
  ): Promise<CatalogReply> {
    if (peeked === null) return this.fetch(query, requestId, trace);
    if (!isCatalogUnavailable(peeked)) return peeked;
    const { code, message, retryAfterSeconds } = peeked.unavailable;
    const error = httpErrorFor(code, message);
    error.headers['retry-after'] = String(retryAfterSeconds);
    throw error;
  }

  private remember(query: CatalogQuery, reply: CatalogReply, sentAt: number): void {
    if (!this.recent.enabled) return;
    this.recent.remember(query, reply, sentAt);
    this.metrics.nearCacheBytes.set(this.recent.heldBytes);
  }
}
