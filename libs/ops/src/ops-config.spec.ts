import { ConfigError, EnvReader } from '@appcat/config';
import { DEFAULT_HEAP_GROWTH_PERCENT, readOpsConfig } from './ops-config.js';

function read(env: Record<string, string>): ReturnType<typeof readOpsConfig> {
  const reader = new EnvReader(env);
  const config = readOpsConfig(reader, 9100);
  reader.done();
  return config;
}

describe('readOpsConfig', () => {
  it('defaults to the ops port given, loopback, info logs and the measured heap growth', () => {
    expect(read({})).toEqual({
      port: 9100,
      host: '127.0.0.1',
      logLevel: 'info',
      heapGrowthPercent: DEFAULT_HEAP_GROWTH_PERCENT,
      tracing: { enabled: false, protocol: 'http/protobuf', sampler: 'parentbased_always_on', samplerRatio: 1 },
    });
  });

  it('takes HEAP_GROWTH_PERCENT from 0 (V8 decides) to 300', () => {
    expect(read({ HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(0);
    expect(read({ HEAP_GROWTH_PERCENT: '300' }).heapGrowthPercent).toBe(300);
  });

  it.each(['-1', '301', '1.5', 'lots'])('refuses HEAP_GROWTH_PERCENT=%s at start-up', (value) => {
    expect(() => read({ HEAP_GROWTH_PERCENT: value })).toThrow(ConfigError);
  });
});
