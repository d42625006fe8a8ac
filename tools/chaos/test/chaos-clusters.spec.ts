import { jest } from '@jest/globals';
import { runChaos } from '../src/run-chaos.js';

jest.setTimeout(600_000);

// The CI-sized chaos run on a Redis Cluster (3 primaries, one replica each) and 3 routed NATS servers:
// two replicas of every service as built processes, mixed credit and x402 traffic (every network), and
// the cluster's own faults. `npm run test:chaos` runs it with more callers.
describe('chaos on a Redis Cluster and a NATS cluster (CI size)', () => {
  it('loses no credit, charges nothing twice and settles each delivered x402 payment once through a primary killed, a NATS server killed and a primary back empty', async () => {
    const lines: string[] = [];
    // Printed whether or not the run fails: on a failure the log ends with every replica's last lines.
    const report = await runChaos({ ci: true, clusters: true, log: (line) => lines.push(line) }).finally(() =>
      process.stdout.write(`${lines.join('\n')}\n`),
    );
    expect(report.faults.map((f) => f.fault)).toEqual([
      'kill -9 of a Redis primary (its replica takes over)',
      'kill -9 of a NATS server',
      'a Redis primary restarted empty',
    ]);
    // Reconcile (exact, or debits forgiven by a fault that lost Redis data), no call charged twice, no
    // delivered call without its debit but what a Redis loss forgave, every x402 delivery settled once.
    expect(report.violations).toEqual([]);
    // Recovery times are printed; only that each fault was recovered from is asserted.
    for (const fault of report.faults)
      expect({ fault: fault.fault, recovered: fault.recoveryMs >= 0 }).toEqual({ fault: fault.fault, recovered: true });
  });
});
