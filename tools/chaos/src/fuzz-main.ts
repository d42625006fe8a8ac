#!/usr/bin/env node
// Stand-alone fuzzer run: node dist/fuzz-main.js [runs] [seed]. Exit 1 on any violation.
import { ChaosCluster } from './cluster.js';
import { fuzzGateway } from './fuzz.js';

const runs = Number(process.argv[2] ?? 2000);
const seed = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
const cluster = await ChaosCluster.start({ replicas: 1 });
try {
  const report = await fuzzGateway(cluster, runs, seed);
  process.stdout.write(
    `fuzz: ${report.requests} requests, statuses ${JSON.stringify(report.statuses)}, ${report.upstreamRequests} upstream requests\n`,
  );
  for (const violation of report.violations.slice(0, 50)) process.stdout.write(`VIOLATION ${violation}\n`);
  process.exitCode = report.violations.length === 0 ? 0 : 1;
} finally {
  await cluster.stop();
}
