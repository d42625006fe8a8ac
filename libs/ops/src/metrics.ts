import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** A registry with the process metrics (memory, CPU, event-loop lag) and the service label. */
export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What the gateway counts: requests by route and status, charges, declines, NATS round trips. */
export class GatewayMetrics {
  readonly requests: Counter<'route' | 'status'>;
  readonly charges: Counter<'method' | 'network'>;
  readonly declines: Counter<'reason'>;
  readonly natsRequestSeconds: Histogram<'subject' | 'outcome'>;

  constructor(readonly registry: Registry) {
    this.requests = new Counter({ name: 'appcat_http_requests_total', help: 'HTTP requests by route and status', labelNames: ['route', 'status'], registers: [registry] });
    this.charges = new Counter({ name: 'appcat_charges_total', help: 'Charged calls by payment method and network', labelNames: ['method', 'network'], registers: [registry] });
    this.declines = new Counter({ name: 'appcat_declines_total', help: 'Requests refused before delivery, by reason', labelNames: ['reason'], registers: [registry] });
    this.natsRequestSeconds = new Histogram({
      name: 'appcat_nats_request_seconds',
      help: 'NATS request/reply latency by subject',
      labelNames: ['subject', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    });
  }
}

/** What payments counts: debits, settlements and their latency, the write-behind ledger's lag. */
export class PaymentsMetrics {
  readonly debits: Counter<'outcome'>;
  readonly settlementSeconds: Histogram<'network' | 'outcome'>;
  readonly ledgerFlushLagSeconds: Gauge;
  readonly ledgerFlushed: Counter;

  constructor(readonly registry: Registry) {
    this.debits = new Counter({ name: 'appcat_credit_debits_total', help: 'Credit debit attempts by outcome', labelNames: ['outcome'], registers: [registry] });
    this.settlementSeconds = new Histogram({
      name: 'appcat_x402_settlement_seconds',
      help: 'x402 verify+settle latency through the facilitator',
      labelNames: ['network', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    });
    this.ledgerFlushLagSeconds = new Gauge({
      name: 'appcat_ledger_flush_lag_seconds',
      help: 'Age of the oldest debit in the last batch written to Postgres',
      registers: [registry],
    });
    this.ledgerFlushed = new Counter({ name: 'appcat_ledger_flushed_total', help: 'Debits written to Postgres', registers: [registry] });
  }
}

/** What the catalog counts: upstream latency and errors by host, cache results. */
export class CatalogMetrics {
  readonly upstreamSeconds: Histogram<'host' | 'outcome'>;
  readonly upstreamErrors: Counter<'host' | 'code'>;
  readonly cache: Counter<'kind' | 'result'>;

  constructor(readonly registry: Registry) {
    this.upstreamSeconds = new Histogram({
      name: 'appcat_upstream_request_seconds',
      help: 'Upstream store request latency by host',
      labelNames: ['host', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    });
    this.upstreamErrors = new Counter({ name: 'appcat_upstream_errors_total', help: 'Upstream failures by host and code', labelNames: ['host', 'code'], registers: [registry] });
    this.cache = new Counter({ name: 'appcat_cache_results_total', help: 'Catalog answers by route and where the data came from (upstream, cache, stale)', labelNames: ['kind', 'result'], registers: [registry] });
  }
}
