import { CatalogMetrics, createRegistry, GatewayMetrics, PaymentsMetrics } from '@appcat/ops';

/** Labels Prometheus adds to every series it scrapes (the target's), besides the services' own. */
export const SCRAPE_LABELS = ['job', 'instance', 'namespace', 'pod', 'container', 'endpoint'];

/** Every series name the services export, with the labels it carries. */
export type MetricInventory = Map<string, Set<string>>;

interface RegisteredMetric {
  name: string;
  type: string;
  labelNames?: string[];
}

/**
 * What the services really export: their metrics classes (libs/ops) built on registries as
 * `opsProviders` builds them (the `service` label and the process metrics included), each histogram as
 * the `_bucket`, `_sum` and `_count` series Prometheus scrapes.
 */
export function exportedMetrics(): MetricInventory {
  const inventory: MetricInventory = new Map();
  for (const [service, Metrics] of [
    ['gateway', GatewayMetrics],
    ['payments', PaymentsMetrics],
    ['catalog', CatalogMetrics],
  ] as const) {
    const registry = createRegistry(service);
    new Metrics(registry);
    for (const metric of registry.getMetricsAsArray() as unknown as RegisteredMetric[]) {
      const labels = [...(metric.labelNames ?? []), 'service', ...SCRAPE_LABELS];
      const series =
        metric.type === 'histogram'
          ? [
              [`${metric.name}_bucket`, [...labels, 'le']],
              [`${metric.name}_sum`, labels],
              [`${metric.name}_count`, labels],
            ]
          : metric.type === 'summary'
            ? [
                [metric.name, [...labels, 'quantile']],
                [`${metric.name}_sum`, labels],
                [`${metric.name}_count`, labels],
              ]
            : [[metric.name, labels]];
      for (const [name, names] of series as Array<[string, string[]]>) {
        const known = inventory.get(name) ?? new Set<string>();
        for (const label of names) known.add(label);
        inventory.set(name, known);
      }
    }
  }
  return inventory;
}
