import { Inject, Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Injection token of a service's metrics {@link Registry} (see opsProviders): its metrics class and its ops port share it. */
export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');

/** A registry with the process metrics (memory, CPU, event-loop lag) and the service label. */
export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A latency histogram in seconds, on the buckets every latency here shares. */
function latencyHistogram<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: L[],
): Histogram<L> {
  return new Histogram({ name, help, labelNames, buckets: LATENCY_BUCKETS, registers: [registry] });
}

/** What the gateway counts: requests by route and status, charges, declines, NATS round trips. */
@Injectable()
export class GatewayMetrics {
  readonly requests: Counter<'route' | 'status'>;
  readonly charges: Counter<'method' | 'network'>;
  readonly declines: Counter<'reason'>;
  readonly natsRequestSeconds: Histogram<'subject' | 'outcome'>;
  readonly nearCacheReads: Counter<'outcome'>;
  readonly nearCacheBytes: Gauge;

  constructor(@Inject(METRICS_REGISTRY) readonly registry: Registry) {
    this.requests = new Counter({
      name: 'appcat_http_requests_total',
      help: 'HTTP requests by route and status',
      labelNames: ['route', 'status'],
      registers: [registry],
    });
    this.charges = new Counter({
      name: 'appcat_charges_total',
      help: 'Charged calls by payment method and network',
      labelNames: ['method', 'network'],
      registers: [registry],
    });
    this.declines = new Counter({
      name: 'appcat_declines_total',
      help: 'Requests refused before delivery, by reason',
      labelNames: ['reason'],
      registers: [registry],
    });
    this.natsRequestSeconds = latencyHistogram(
      registry,
      'appcat_nats_request_seconds',
      'NATS request/reply latency by subject',
      ['subject', 'outcome'],
    );
    this.nearCacheReads = new Counter({
      name: 'appcat_near_cache_reads_total',
      help: "Catalog reads tried on the gateway's near cache, by outcome (hit, miss)",
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.nearCacheBytes = new Gauge({
      name: 'appcat_near_cache_bytes',
      help: "Estimated size of the answers the gateway's near cache holds",
      registers: [registry],
    });
  }
}

/** What payments counts: debits, settlements and their latency, the write-behind ledger's lag. */
@Injectable()
export class PaymentsMetrics {
  readonly debits: Counter<'outcome'>;
  readonly settlementSeconds: Histogram<'network' | 'outcome'>;
  readonly facilitatorRequestSeconds: Histogram<'operation' | 'outcome'>;
  readonly ledgerFlushLagSeconds: Gauge;
  readonly ledgerFlushed: Counter;
  readonly reconcileRuns: Counter<'result'>;

  constructor(@Inject(METRICS_REGISTRY) readonly registry: Registry) {
    this.debits = new Counter({
      name: 'appcat_credit_debits_total',
      help: 'Credit debit attempts by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.settlementSeconds = latencyHistogram(
      registry,
      'appcat_x402_settlement_seconds',
      'x402 settlement latency in payments: the facilitator settling a held payment, and its record',
      ['network', 'outcome'],
    );
    this.facilitatorRequestSeconds = latencyHistogram(
      registry,
      'appcat_x402_facilitator_request_seconds',
      'Time spent waiting on the facilitator per /verify or /settle request (answered, failed or timeout)',
      ['operation', 'outcome'],
    );
    this.ledgerFlushLagSeconds = new Gauge({
      name: 'appcat_ledger_flush_lag_seconds',
      help: 'Age of the oldest debit in the last batch written to Postgres',
      registers: [registry],
    });
    this.ledgerFlushed = new Counter({
      name: 'appcat_ledger_flushed_total',
      help: 'Debits written to Postgres',
      registers: [registry],
    });
    this.reconcileRuns = new Counter({
      name: 'appcat_reconcile_runs_total',
      help: 'Reconciliations run, by result: exact, pending (debits still on their way to Postgres), differs (the books differ), unavailable',
      labelNames: ['result'],
      registers: [registry],
    });
  }
}

/** A catalog replica's fetch budget at one moment: its slots, the fetches holding one, the ones waiting. */
export interface FetchBudgetState {
  limit: number;
  inFlight: number;
  waiting: number;
}

/** What the catalog counts: upstream latency and errors by host, cache results, its fetch budget. */
@Injectable()
export class CatalogMetrics {
  readonly upstreamSeconds: Histogram<'host' | 'outcome'>;
  readonly upstreamErrors: Counter<'host' | 'code'>;
  readonly cache: Counter<'kind' | 'result'>;
  /** Upstream answers we could not read, by priced route (its path template): the live sign of upstream drift. */
  readonly upstreamUnreadable: Counter<'route'>;
  /**
   * Every source a route tried, by route path template, source name and outcome (ok, implausible,
   * unconfirmed, failed): a source dying shows here before users see a 502.
   */
  readonly upstreamSource: Counter<'route' | 'source' | 'outcome'>;
  /** Time a fetch waited for a slot, observed only for those that had to wait: admitted, or refused at the bound. */
  readonly fetchWaitSeconds: Histogram<'outcome'>;
  private fetchBudgetState: () => FetchBudgetState | undefined = () => undefined;
  private breakerStates: () => Promise<Array<{ upstream: string; open: boolean }>> = async () => [];

  constructor(@Inject(METRICS_REGISTRY) readonly registry: Registry) {
    this.upstreamSeconds = latencyHistogram(
      registry,
      'appcat_upstream_request_seconds',
      'Upstream store request latency by host',
      ['host', 'outcome'],
    );
    this.upstreamErrors = new Counter({
      name: 'appcat_upstream_errors_total',
      help: 'Upstream failures by host and code',
      labelNames: ['host', 'code'],
      registers: [registry],
    });
    this.upstreamUnreadable = new Counter({
      name: 'appcat_upstream_unreadable_total',
      help: 'Calls answered 502 because the upstream store answered something we cannot read (its shape drifted), by route path template',
      labelNames: ['route'],
      registers: [registry],
    });
    this.upstreamSource = new Counter({
      name: 'appcat_upstream_source_total',
      help: 'Upstream sources tried per route (path template), by source and outcome (ok, implausible, unconfirmed, failed)',
      labelNames: ['route', 'source', 'outcome'],
      registers: [registry],
    });
    this.cache = new Counter({
      name: 'appcat_cache_results_total',
      help: 'Catalog answers by route and where the data came from (upstream, cache, stale)',
      labelNames: ['kind', 'result'],
      registers: [registry],
    });
    this.fetchWaitSeconds = latencyHistogram(
      registry,
      'appcat_catalog_fetch_wait_seconds',
      'Wait of a catalog.fetch for a slot of its replica, by outcome (admitted, refused); fetches that found a free slot are not observed',
      ['outcome'],
    );
    const breakers = () => this.breakerStates();
    new Gauge({
      name: 'appcat_upstream_breaker_open',
      help: "1 while the upstream host's circuit breaker is open (calls to it fail fast or are served stale), else 0; read from Redis when scraped",
      labelNames: ['host'],
      registers: [registry],
      async collect(this: Gauge<'host'>) {
        for (const { upstream, open } of await breakers()) this.set({ host: upstream }, open ? 1 : 0);
      },
    });
    // Read when scraped, so the fetches themselves pay nothing for these three.
    const state = () => this.fetchBudgetState();
    const gauge = (name: string, help: string, pick: (s: FetchBudgetState) => number) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        collect(this: Gauge) {
          const now = state();
          if (now) this.set(pick(now));
        },
      });
    gauge(
      'appcat_catalog_fetch_slots',
      'catalog.fetch handlers a replica runs at once (CATALOG_MAX_IN_FLIGHT)',
      (s) => s.limit,
    );
    gauge('appcat_catalog_fetches_in_flight', 'catalog.fetch handlers running on this replica', (s) => s.inFlight);
    gauge(
      'appcat_catalog_fetches_waiting',
      'catalog.fetch requests waiting for a slot on this replica',
      (s) => s.waiting,
    );
  }

  /**
   * Where the breaker gauge reads from when scraped: each upstream host's breaker, shared by every
   * replica through Redis (a replica that cannot read Redis reports no value).
   */
  watchBreakers(upstreams: readonly string[], isOpen: (upstream: string) => Promise<boolean>): void {
    this.breakerStates = async () => {
      const open = await Promise.all(upstreams.map((upstream) => isOpen(upstream).catch(() => undefined)));
      return upstreams.flatMap((upstream, i) => (open[i] === undefined ? [] : [{ upstream, open: open[i] }]));
    };
  }

  /** Where the fetch budget gauges read from; set once by the catalog's budget. */
  watchFetchBudget(read: () => FetchBudgetState): void {
    this.fetchBudgetState = read;
  }
}
