/**
 * `npm run bench`: starts everything it needs, runs every section on this machine, prints the report
 * and writes it to docs/benchmarks.md. Settings: see settings.ts and the README's Benchmarks section.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describeMachine, formatMachine } from './machine.js';
import { deployedServiceEnvironment, deployedServiceNodeArgs, repoPath } from './processes.js';
import { Report } from './report.js';
import { clusterSection } from './sections/cluster.js';
import { creditSection, ZIPF_MEMORY_LABEL } from './sections/credits.js';
import { LIFTED_MEMORY_LABEL, scaleSection } from './sections/scale.js';
import { TRACED_MEMORY_LABEL, tracingSection } from './sections/tracing.js';
import { upstreamSection } from './sections/upstream.js';
import { x402Section } from './sections/x402.js';
import { readBenchSettings } from './settings.js';
import { Stack } from './stack.js';

const log = (line = '') => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const settings = readBenchSettings(process.env, repoPath('docs/benchmarks.md'));
  const machine = describeMachine();
  const conditions =
    process.env.BENCH_CONDITIONS ??
    `load average ${machine.loadAverage.toFixed(2)} when the run started; say what else ran with BENCH_CONDITIONS`;
  log(`bench on ${formatMachine(machine)}`);
  log(`${settings.rounds} rounds × ${settings.seconds} s, sections ${settings.sections.join(', ')}`);
  const report = new Report(deployedServiceNodeArgs(), deployedServiceEnvironment());
  const wants = (section: string) => (settings.sections as string[]).includes(section);

  if (wants('credits') || wants('x402')) {
    log(
      'starting the stack (NATS, Redis, Postgres database, store emulator, gateway, payments, catalog' +
        (wants('x402') ? ', anvil, dev facilitator)' : ')'),
    );
    // BENCH_CPU_PROF=<dir>: our services write V8 CPU profiles there when they stop (open in Chrome DevTools).
    const profileDir = process.env.BENCH_CPU_PROF;
    const stack = await Stack.start({
      x402: wants('x402'),
      nodeArgs: () => [
        ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
        ...settings.serviceNodeArgs,
      ],
    });
    try {
      if (wants('credits')) {
        log('section: credit-paid calls');
        await creditSection(stack, settings, report);
      }
      if (wants('x402')) {
        log('section: x402-paid calls');
        await x402Section(stack, settings, report);
      }
    } finally {
      await stack.stop();
    }
  }
  if (wants('tracing')) {
    log('section: credit-paid calls with tracing on (two stacks)');
    await tracingSection(settings, report);
  }
  if (wants('scale')) {
    log('section: catalog scale-out');
    await scaleSection(settings, report);
  }
  if (wants('upstream')) {
    log('section: catalog upstream calls');
    await upstreamSection(settings, report);
  }
  if (wants('cluster')) {
    log('section: credit-paid calls on a Redis Cluster');
    await clusterSection(settings, report);
  }
  const memoryTargets = ['gateway', 'payments', 'catalog'].filter(
    (name) => report.memory.get(name)?.peakBytes !== undefined,
  );
  if (memoryTargets.length > 0) {
    // Our services as deployed, on the loads the target has always been read on: the Zipf mix's peaks are
    // reported beside it (credits section), and a catalog replica with its fetch budget lifted (100,000 in
    // flight, a configuration no deployment runs) and the services with tracing on (off as deployed) only in
    // the memory table.
    const counted = (name: string) =>
      !name.startsWith('floor') &&
      !name.startsWith('express') &&
      !name.endsWith(`(${ZIPF_MEMORY_LABEL})`) &&
      !name.endsWith(`(${TRACED_MEMORY_LABEL})`) &&
      !name.endsWith(`, ${LIFTED_MEMORY_LABEL})`);
    const worst = Math.max(...[...report.memory].filter(([name]) => counted(name)).map(([, m]) => m.peakBytes ?? 0));
    report.check({
      name: 'every service under load',
      target: '< 150 MB RSS',
      measured: `largest ${(worst / 1024 / 1024).toFixed(1)} MB`,
      met: worst < 150 * 1024 * 1024,
    });
  }

  const notes = await readFile(repoPath('docs/bench-findings.md'), 'utf8').catch(() => '');
  const markdown = report.render(machine, settings, conditions, notes);
  log();
  log(markdown);
  if (settings.output !== '') {
    await mkdir(dirname(settings.output), { recursive: true });
    await writeFile(settings.output, markdown);
    log(`written to ${settings.output}`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
