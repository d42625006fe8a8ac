import { exportedMetrics } from './exported-metrics.js';
import { alertProblems, dashboardProblems, headingAnchor } from './monitoring.js';
import { expressionProblems, expressionUse } from './promql.js';

const inventory = exportedMetrics();

describe('PromQL against the exported metrics', () => {
  it('knows every metric class, histograms as their series, with the service and scrape labels', () => {
    expect(inventory.get('appcat_charges_total')).toEqual(
      new Set(['method', 'network', 'service', 'job', 'instance', 'namespace', 'pod', 'container', 'endpoint']),
    );
    expect(inventory.get('appcat_x402_settlement_seconds_bucket')?.has('le')).toBe(true);
    expect(inventory.has('appcat_x402_settlement_seconds_count')).toBe(true);
    expect(inventory.has('appcat_x402_settlement_seconds')).toBe(false);
    expect(inventory.has('process_resident_memory_bytes')).toBe(true);
  });

  it('reads selectors, matchers and groupings, Grafana variables included', () => {
    expect(
      expressionUse(
        'histogram_quantile(0.99, sum by (le, subject) (rate(appcat_nats_request_seconds_bucket{outcome="ok"}[$__rate_interval])))',
      ),
    ).toEqual({
      errors: [],
      selectors: [{ metric: 'appcat_nats_request_seconds_bucket', labels: ['outcome'] }],
      grouping: ['le', 'subject'],
    });
  });

  it.each([
    ['sum(rate(appcat_charge_total[5m]))', 'appcat_charge_total is not a metric the services export'],
    ['sum(rate(appcat_charges_total{rail="x402"}[5m]))', 'appcat_charges_total has no label rail'],
    ['sum by (route) (rate(appcat_charges_total[5m]))', 'no metric here carries the label route'],
    ['sum(rate(appcat_charges_total[5m])', 'syntax error'],
    ['vector(1)', 'selects no metric'],
  ])('refuses %s', (expression, problem) => {
    expect(expressionProblems(expression, inventory).join('\n')).toContain(problem);
  });

  it('refuses an alert without a severity, what to do or a runbook section that exists', () => {
    const problems = alertProblems(
      [
        { alert: 'A', expr: 'max(appcat_ledger_flush_lag_seconds) > 1', annotations: { summary: 's' } },
        {
          alert: 'B',
          expr: 'max(appcat_ledger_flush_lag_seconds) > 1',
          labels: { severity: 'warning' },
          annotations: { summary: 's', description: 'd', runbook: 'docs/deployment.md#no-such-section' },
        },
      ],
      inventory,
    );
    expect(problems).toEqual([
      'A: labels.severity must be critical, warning or info',
      'A: no description annotation',
      'A: no runbook annotation',
      'B: runbook docs/deployment.md#no-such-section names no section of docs/deployment.md',
    ]);
  });

  it('refuses overlapping panels, panels off the grid and queries over unknown metrics', () => {
    const panel = (id: number, x: number, expr = 'sum(appcat_near_cache_bytes)') => ({
      id,
      type: 'timeseries',
      title: `p${id}`,
      gridPos: { h: 8, w: 12, x, y: 0 },
      targets: [{ refId: 'A', expr }],
    });
    expect(dashboardProblems({ panels: [panel(1, 0), panel(2, 12)] }, inventory)).toEqual([]);
    expect(dashboardProblems({ panels: [panel(1, 0), panel(2, 6), panel(3, 16, 'nope_total')] }, inventory)).toEqual([
      'panel p2: overlaps p1',
      'panel p3: wider than the 24-column grid',
      'panel p3: overlaps p2',
      'panel p3: nope_total: nope_total is not a metric the services export',
    ]);
  });

  it('makes GitHub’s heading anchors', () => {
    expect(headingAnchor('AppcatLedgerNotFlushing')).toBe('appcatledgernotflushing');
    expect(headingAnchor('Past one Redis and one NATS server')).toBe('past-one-redis-and-one-nats-server');
  });
});
