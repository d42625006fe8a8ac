#!/usr/bin/env node
// `npm run test:chaos`: the full chaos suite with its figures. `--ci` for the short version,
// `--only <name>` (repeatable) to run some faults, `--clusters` for the run on a Redis Cluster and a NATS
// cluster. Exit 0 when no invariant broke, 1 otherwise.
import { parseArgs } from 'node:util';
import { runChaos } from './run-chaos.js';

const { values } = parseArgs({
  options: {
    ci: { type: 'boolean', default: false },
    clusters: { type: 'boolean', default: false },
    only: { type: 'string', multiple: true },
  },
});
const started = Date.now();
const report = await runChaos({
  ci: values.ci === true,
  clusters: values.clusters === true,
  only: values.only,
  log: (line) => process.stdout.write(`${line}\n`),
});

// Charged 502s: all of them, then those charged while a breaker was open (the calls in flight when it opened, at most).
process.stdout.write('\nfault'.padEnd(64) + 'recovery  charged 502 (breaker open)  verdict\n');
for (const fault of report.faults) {
  const charged = `${fault.charged502} (${fault.charged502WhileOpen} of ≤ ${fault.inFlightBound})`;
  process.stdout.write(
    `${fault.fault.padEnd(63)}${`${fault.recoveryMs} ms`.padStart(9)}  ${charged.padEnd(25)}  ${fault.violations.length === 0 ? 'ok' : `${fault.violations.length} violations`}\n`,
  );
}
const t = report.throughput;
if (t) {
  process.stdout.write(
    `\ncredit calls/s: ${t.creditPerSecond.toFixed(1)} alone, ${t.creditPerSecondWithSlowX402.toFixed(1)} with ${t.hangingX402} x402 calls hanging on a held facilitator (ratio ${t.ratio.toFixed(2)})\n`,
  );
}
process.stdout.write(
  `${report.violations.length === 0 ? 'no invariant broken' : `${report.violations.length} violations:\n  ${report.violations.join('\n  ')}`}\n`,
);
process.stdout.write(`took ${Math.round((Date.now() - started) / 1000)} s\n`);
process.exit(report.violations.length === 0 ? 0 : 1);
