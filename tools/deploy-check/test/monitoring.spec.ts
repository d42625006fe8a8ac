import { readFileSync } from 'node:fs';
import { renderKustomization } from '../src/kustomize/kustomize.js';
import { type JsonObject, type K8sObject } from '../src/kubernetes/objects.js';
import { schemaProblems } from '../src/kubernetes/schema.js';
import { unknownFieldProblems } from '../src/kubernetes/strict-fields.js';
import { exportedMetrics } from '../src/monitoring/exported-metrics.js';
import {
  alertProblems,
  dashboardProblems,
  metricsSelected,
  rulesOf,
  schemaProblemsOf,
} from '../src/monitoring/monitoring.js';
import { repoPath } from '../src/repo.js';

const inventory = exportedMetrics();
const objects: K8sObject[] = renderKustomization(repoPath('k8s/monitoring'));
const [rule] = objects.filter((object) => object.kind === 'PrometheusRule');
const [dashboardMap] = objects.filter((object) => object.kind === 'ConfigMap');
const dashboard = JSON.parse(Object.values(dashboardMap.data as Record<string, string>)[0]) as JsonObject;
const alerts = rulesOf(rule);
const dashboardQueries = (dashboard.panels as Array<{ targets?: Array<{ expr: string }> }>).flatMap((panel) =>
  (panel.targets ?? []).map((target) => target.expr),
);

describe('k8s/monitoring: the dashboard and the alerts', () => {
  it('renders a PrometheusRule and the dashboard as a ConfigMap for Grafana’s sidecar', () => {
    expect(objects.map((object) => `${object.kind}/${object.metadata.name}`).sort()).toEqual([
      'ConfigMap/appcat-grafana-dashboard',
      'PrometheusRule/appcat',
    ]);
    expect(schemaProblems(dashboardMap)).toEqual([]);
    expect(unknownFieldProblems([dashboardMap])).toEqual([]);
    expect(dashboardMap.metadata.labels).toMatchObject({
      grafana_dashboard: '1',
      'app.kubernetes.io/part-of': 'appcat',
    });
    expect(dashboardMap.data).toEqual({
      'appcat-overview.json': readFileSync(repoPath('k8s/monitoring/appcat-overview.json'), 'utf8'),
    });
  });

  it('holds a PrometheusRule and a dashboard valid against their schemas', () => {
    expect(schemaProblemsOf(rule, 'prometheus-rule.json')).toEqual([]);
    expect(schemaProblemsOf(dashboard, 'grafana-dashboard.json')).toEqual([]);
  });

  it('alerts with a severity, what to do and a runbook section, on metrics and labels the services export', () => {
    expect(alertProblems(alerts, inventory)).toEqual([]);
  });

  it('has an alert for each failure an operator must act on', () => {
    const byMetric = (metric: string) =>
      alerts.filter((alert) => metricsSelected([alert.expr]).has(metric)).map((alert) => alert.alert);
    expect(byMetric('appcat_upstream_errors_total')).not.toEqual([]);
    expect(byMetric('appcat_upstream_source_total')).not.toEqual([]);
    expect(byMetric('appcat_upstream_breaker_open')).not.toEqual([]);
    expect(byMetric('appcat_ledger_flushed_total')).not.toEqual([]);
    expect(byMetric('appcat_reconcile_runs_total')).not.toEqual([]);
    expect(byMetric('appcat_x402_facilitator_request_seconds_count')).not.toEqual([]);
  });

  it('draws panels on the grid from queries over metrics and labels the services export', () => {
    expect(dashboardProblems(dashboard, inventory)).toEqual([]);
  });

  it('shows paid calls, rails, declines, upstream outcomes, cache hits, breakers, ledger lag and reconciliations', () => {
    const shown = metricsSelected(dashboardQueries);
    for (const metric of [
      'appcat_http_requests_total',
      'appcat_charges_total',
      'appcat_declines_total',
      'appcat_upstream_request_seconds_count',
      'appcat_upstream_source_total',
      'appcat_cache_results_total',
      'appcat_upstream_breaker_open',
      'appcat_ledger_flush_lag_seconds',
      'appcat_reconcile_runs_total',
    ])
      expect([metric, shown.has(metric)]).toEqual([metric, true]);
  });
});
