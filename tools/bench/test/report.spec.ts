import { formatMachine } from '../src/machine.js';
import { Report } from '../src/report.js';
import { parseRss } from '../src/rss.js';
import { readBenchSettings } from '../src/settings.js';
import { missQueries } from '../src/sections/scale.js';

describe('parseRss', () => {
  it('reads VmRSS from /proc/<pid>/status, in bytes', () => {
    expect(parseRss('Name:\tnode\nVmHWM:\t  200000 kB\nVmRSS:\t  123456 kB\nThreads:\t11\n')).toBe(123456 * 1024);
  });
  it('is undefined without a VmRSS line (a kernel thread, a zombie)', () => {
    expect(parseRss('Name:\tkthreadd\nState:\tS\n')).toBeUndefined();
  });
});

describe('Report', () => {
  const machine = {
    cpuModel: 'Test CPU',
    cores: 2,
    memoryBytes: 4 * 1024 ** 3,
    node: 'v20.19.0',
    date: '2026-01-01T00:00:00.000Z',
    loadAverage: 0.5,
  };

  it('describes the machine: cpu model, cores, memory, node version, date', () => {
    expect(formatMachine(machine)).toBe(
      'Test CPU, 2 cores, 4.0 GiB memory, Node v20.19.0, 2026-01-01T00:00:00.000Z (load average 0.50 at start)',
    );
  });

  it('renders the machine, the load conditions, targets with verdicts, sections and memory', () => {
    const report = new Report();
    report.check({ name: 'credit path vs raw-NATS floor', target: '≥ 60 %', measured: '64 %', met: true });
    report.check({ name: 'p99', target: '≤ 30 ms', measured: '41.0 ms', met: false });
    report.add('Credit-paid calls', 'a table');
    report.idle('gateway', 80 * 1024 * 1024);
    report.peak('gateway', 90 * 1024 * 1024);
    report.peak('gateway', 85 * 1024 * 1024);
    const markdown = report.render(
      machine,
      readBenchSettings({ BENCH_SECONDS: '2', BENCH_ROUNDS: '1' }, ''),
      'six other agents running tests',
    );
    expect(markdown).toContain('- **Machine:** Test CPU, 2 cores');
    expect(markdown).toContain('- **Load conditions:** six other agents running tests');
    expect(markdown).toMatch(/\| credit path vs raw-NATS floor \| ≥ 60 % +\| 64 % +\| met +\|/);
    expect(markdown).toMatch(/\| p99 +\| ≤ 30 ms +\| 41.0 ms +\| NOT met \|/);
    expect(markdown).toContain('## Credit-paid calls\n\na table');
    // The peak is the largest sample, not the last.
    expect(markdown).toMatch(/\| gateway \| +80.0 MB \| +90.0 MB \|/);
  });

  it('names the node options the services ran with: as deployed, then those BENCH_NODE_ARGS added', () => {
    const settings = readBenchSettings({ BENCH_NODE_ARGS: '--max-old-space-size=96' }, '');
    expect(new Report(['--max-semi-space-size=8']).render(machine, settings, 'quiet')).toContain(
      'our services ran as deployed, with `node --max-semi-space-size=8 --max-old-space-size=96` (`--max-old-space-size=96` added by BENCH_NODE_ARGS)',
    );
    expect(new Report().render(machine, readBenchSettings({}, ''), 'quiet')).toContain(
      'our services ran as deployed, with plain `node`',
    );
  });

  it('names the environment the services ran with (package.json config.serviceEnvironment)', () => {
    const settings = readBenchSettings({}, '');
    expect(
      new Report(['--single-threaded-gc'], { MALLOC_ARENA_MAX: '2' }).render(machine, settings, 'quiet'),
    ).toContain('our services ran as deployed, with `MALLOC_ARENA_MAX=2 node --single-threaded-gc`');
    expect(new Report([], { MALLOC_ARENA_MAX: '2' }).render(machine, settings, 'quiet')).toContain(
      'our services ran as deployed, with `MALLOC_ARENA_MAX=2 node`',
    );
  });

  it('leaves out the targets table when no section measured one', () => {
    expect(new Report().render(machine, readBenchSettings({}, ''), 'quiet')).not.toContain('## Targets');
  });
});

describe('missQueries', () => {
  it('never asks for the same app, storefront and language twice', () => {
    const apps = [
      { trackId: 1, storefronts: ['us', 'gb'] },
      { trackId: 2, storefronts: ['us'] },
    ];
    const queries = missQueries(apps, 1000);
    expect(new Set(queries.map((q) => JSON.stringify(q))).size).toBe(queries.length);
    expect(queries.length).toBeGreaterThan(3);
    expect(missQueries(apps, 2)).toHaveLength(2);
  });
});
