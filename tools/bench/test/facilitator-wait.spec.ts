import { sumSeries } from '../src/facilitator-wait.js';

describe('sumSeries', () => {
  const text = [
    '# HELP appcat_x402_facilitator_request_seconds Time spent waiting on the facilitator',
    '# TYPE appcat_x402_facilitator_request_seconds histogram',
    'appcat_x402_facilitator_request_seconds_bucket{le="0.01",operation="settle",outcome="answered",service="payments"} 3',
    'appcat_x402_facilitator_request_seconds_sum{operation="settle",outcome="answered",service="payments"} 0.0375',
    'appcat_x402_facilitator_request_seconds_count{operation="settle",outcome="answered",service="payments"} 3',
    'appcat_x402_facilitator_request_seconds_sum{operation="verify",outcome="failed",service="payments"} 0.5',
    'appcat_x402_facilitator_request_seconds_count{operation="verify",outcome="failed",service="payments"} 1',
    'appcat_x402_facilitator_request_seconds_sum_other{service="payments"} 100',
    'appcat_x402_settlement_seconds_sum{network="eip155:8453",outcome="settled",service="payments"} 7',
  ].join('\n');

  it('adds one series up over every label set, and nothing whose name only starts with it', () => {
    expect(sumSeries(text, 'appcat_x402_facilitator_request_seconds_sum')).toBeCloseTo(0.5375, 10);
    expect(sumSeries(text, 'appcat_x402_facilitator_request_seconds_count')).toBe(4);
  });

  it('reads a series without labels, and is 0 for one that is absent', () => {
    expect(sumSeries('process_cpu_seconds_total 12.5\n', 'process_cpu_seconds_total')).toBe(12.5);
    expect(sumSeries(text, 'appcat_nats_request_seconds_sum')).toBe(0);
  });
});
