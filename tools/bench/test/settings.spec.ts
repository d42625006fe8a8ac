import { readBenchSettings } from '../src/settings.js';

describe('readBenchSettings', () => {
  it('has defaults for a full run and writes to the given report path', () => {
    expect(readBenchSettings({}, '/r.md')).toEqual({
      seconds: 10,
      rounds: 3,
      warmupSeconds: 2,
      firstWarmupSeconds: 20,
      connections: 64,
      x402Calls: 100,
      x402WarmupCalls: 50,
      scaleConcurrency: 256,
      upstreamLatencyMs: 50,
      sections: ['credits', 'x402', 'tracing', 'scale', 'upstream', 'cluster'],
      output: '/r.md',
      serviceNodeArgs: [],
    });
  });
  it('reads BENCH_* overrides; an empty BENCH_OUTPUT means print only', () => {
    const settings = readBenchSettings(
      {
        BENCH_SECONDS: '2',
        BENCH_ROUNDS: '5',
        BENCH_FIRST_WARMUP_SECONDS: '0',
        BENCH_SECTIONS: 'x402, credits',
        BENCH_OUTPUT: '',
        BENCH_NODE_ARGS: ' --max-old-space-size=96  --max-semi-space-size=4 ',
      },
      '/r.md',
    );
    expect(settings).toMatchObject({
      seconds: 2,
      rounds: 5,
      firstWarmupSeconds: 0,
      sections: ['x402', 'credits'],
      output: '',
      serviceNodeArgs: ['--max-old-space-size=96', '--max-semi-space-size=4'],
    });
  });
  it('lists every bad value at once', () => {
    let message = '';
    try {
      readBenchSettings({ BENCH_SECONDS: 'soon', BENCH_ROUNDS: '0', BENCH_SECTIONS: 'credits,speed' }, '');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('BENCH_SECONDS must be a number of at least 1, got "soon"');
    expect(message).toContain('BENCH_ROUNDS must be a number of at least 1, got "0"');
    expect(message).toContain('unknown section "speed"');
  });
});
