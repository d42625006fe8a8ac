import { parser } from '@prometheus-io/lezer-promql';
import type { MetricInventory } from './exported-metrics.js';

/** Grafana's range variables, as values PromQL accepts, so a dashboard's queries parse as Prometheus will see them. */
const GRAFANA_RANGES = /\$(__rate_interval|__interval|__range)\b/g;

export interface ExpressionUse {
  /** Syntax errors, by where they are. */
  errors: string[];
  /** Metric names selected, each with the label names its matchers name. */
  selectors: Array<{ metric: string; labels: string[] }>;
  /** Label names in `by (…)`, `without (…)`, `on (…)`, `ignoring (…)`, `group_left/right (…)`. */
  grouping: string[];
}

/** What a PromQL expression selects and groups by, read with the Prometheus project's own grammar (lezer-promql). */
export function expressionUse(expression: string): ExpressionUse {
  const text = expression.replace(GRAFANA_RANGES, '5m');
  const use: ExpressionUse = { errors: [], selectors: [], grouping: [] };
  const cursor = parser.parse(text).cursor();
  do {
    const { name, from, to } = cursor;
    if (cursor.type.isError) use.errors.push(`syntax error at ${from}: ${JSON.stringify(text.slice(from, to + 10))}`);
    else if (name === 'VectorSelector') {
      const node = cursor.node;
      const metric = node.getChild('Identifier');
      const labels = (node.getChild('LabelMatchers')?.getChildren('UnquotedLabelMatcher') ?? []).map((matcher) => {
        const label = matcher.getChild('LabelName')!;
        return text.slice(label.from, label.to);
      });
      if (metric) use.selectors.push({ metric: text.slice(metric.from, metric.to), labels });
    } else if (name === 'GroupingLabels') {
      for (const label of cursor.node.getChildren('LabelName')) use.grouping.push(text.slice(label.from, label.to));
    }
  } while (cursor.next());
  return use;
}

/** What in `expression` is wrong or not exported: syntax, unknown metrics, labels no selected metric carries. */
export function expressionProblems(expression: string, inventory: MetricInventory): string[] {
  const where = expression.replace(/\s+/g, ' ').trim();
  const { errors, selectors, grouping } = expressionUse(expression);
  if (errors.length > 0) return errors.map((error) => `${where}: ${error}`);
  if (selectors.length === 0) return [`${where}: selects no metric`];
  const problems: string[] = [];
  for (const { metric, labels } of selectors) {
    const known = inventory.get(metric);
    if (!known) {
      problems.push(`${where}: ${metric} is not a metric the services export`);
      continue;
    }
    for (const label of labels) if (!known.has(label)) problems.push(`${where}: ${metric} has no label ${label}`);
  }
  for (const label of grouping) {
    if (!selectors.some(({ metric }) => inventory.get(metric)?.has(label)))
      problems.push(`${where}: no metric here carries the label ${label}`);
  }
  return problems;
}
