#!/usr/bin/env node
// `npm test`: sets up what the tests need on this machine (dependencies, Postgres, the nats-server and
// redis-server binaries the suites start privately), then builds, lints and tests every project, and
// ends with one line counting every test in the workspace.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBinaries, ensureChromium, ensureDependencies, ensureInfrastructure, log } from './lib/infra.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

ensureDependencies(root);
await ensureInfrastructure();
ensureBinaries(['nats', 'redis']);
ensureChromium();

const results = join(root, 'tmp', 'test-results');
rmSync(results, { recursive: true, force: true });

const extra = process.argv.slice(2);
// The suites that start a whole cluster of processes (and Chromium) run after the others, one at a
// time: side by side on two cores they starved each other and the projects beside them. So do the
// Redis Cluster / NATS cluster suites of payments and the catalog (their `test-cluster` target).
const HEAVY = ['@appcat/e2e', '@appcat/chaos'];
const env = { ...process.env, NX_TUI: 'false', NX_DAEMON: 'false' };
const runMany = (targets, args) => spawnSync('npx', ['nx', 'run-many', '-t', ...targets, '--outputStyle=stream', ...args, ...extra], { stdio: 'inherit', env });
log(`nx run-many -t build lint test (all but ${HEAVY.join(', ')})`);
const light = runMany(['build', 'lint', 'test'], [`--exclude=${HEAVY.join(',')}`]);
log('nx run-many -t test-cluster --parallel=1');
const cluster = runMany(['test-cluster'], ['--parallel=1']);
log(`nx run-many -t build lint test -p ${HEAVY.join(',')} --parallel=1`);
const heavy = runMany(['build', 'lint', 'test'], [`--projects=${HEAVY.join(',')}`, '--parallel=1']);
const nx = { status: light.status || cluster.status || heavy.status };

let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];
if (existsSync(results)) {
  for (const file of readdirSync(results)) {
    const summary = JSON.parse(readFileSync(join(results, file), 'utf8'));
    passed += summary.passed;
    failed += summary.failed;
    skipped += summary.skipped;
    for (const failure of summary.failures ?? []) failures.push(`${summary.project}: ${failure}`);
  }
}
if (nx.status !== 0 && failed === 0) failed = 1; // a build or lint failure counts as one
const failedRuns = Object.entries({ light, cluster, heavy }).filter(([, run]) => run.status !== 0);
if (failedRuns.length > 0) process.stdout.write(`\nnx runs that failed: ${failedRuns.map(([name]) => name).join(', ')} (see each run's "Failed tasks" list above)\n`);
if (failures.length > 0) process.stdout.write(`\nfailed:\n${failures.map((f) => `  ${f}`).join('\n')}\n`);
process.stdout.write(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(nx.status === 0 && failed === 0 ? 0 : 1);
