import { ConfigError, EnvReader } from '@appcat/config';
import { readTracingConfig } from './tracing-config.js';

function read(env: Record<string, string>): ReturnType<typeof readTracingConfig> {
  const reader = new EnvReader(env);
  const config = readTracingConfig(reader);
  reader.done();
  return config;
}

describe('readTracingConfig', () => {
  it('is off unless an OTLP endpoint is set', () => {
    expect(read({})).toEqual({
      enabled: false,
      protocol: 'http/protobuf',
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
    });
    expect(read({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }).enabled).toBe(false);
  });

  it('is on with either endpoint setting, over OTLP/HTTP protobuf unless JSON is asked for', () => {
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toMatchObject({
      enabled: true,
      protocol: 'http/protobuf',
    });
    expect(
      read({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }),
    ).toMatchObject({ enabled: true, protocol: 'http/json' });
    // The traces-only protocol wins over the general one, as the specification says.
    expect(
      read({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }).protocol,
    ).toBe('http/protobuf');
  });

  it('stays off when the SDK is disabled or the traces exporter is none', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(read({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).enabled).toBe(false);
    expect(read({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).enabled).toBe(false);
  });

  it('reads the sampler and its ratio, which keeps every trace when not given', () => {
    expect(read({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' })).toMatchObject({
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.1,
    });
    expect(read({ OTEL_TRACES_SAMPLER: 'traceidratio' })).toMatchObject({ sampler: 'traceidratio', samplerRatio: 1 });
    expect(read({ OTEL_TRACES_SAMPLER: 'always_off' })).toMatchObject({ sampler: 'always_off' });
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT must be a http: or https: URL'],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL must be one of http/protobuf, http/json'],
    [{ OTEL_TRACES_SAMPLER: 'ratio' }, 'OTEL_TRACES_SAMPLER must be one of always_on'],
    [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '10%' }, 'must be a ratio from 0 to 1'],
    [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' }, 'must be a ratio from 0 to 1'],
    [{ OTEL_TRACES_SAMPLER_ARG: '0.1' }, 'OTEL_TRACES_SAMPLER is parentbased_always_on'],
  ])('refuses %j at start-up', (env, message) => {
    expect(() => read(env)).toThrow(ConfigError);
    expect(() => read(env)).toThrow(message);
  });
});
