import type { EnvReader } from '@appcat/config';

/** The samplers OTEL_TRACES_SAMPLER names (the OpenTelemetry SDK environment specification). */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/**
 * The libraries a service can have OpenTelemetry's instrumentations trace (tracing-sdk.ts): each
 * service names those it uses (its main.ts), so none loads or patches a library it does not use.
 */
export type TracedLibrary = 'http-client' | 'undici' | 'ioredis' | 'pg';

/** OTLP over HTTP; gRPC is not shipped (collectors take OTLP/HTTP on 4318). */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;

/**
 * Tracing, from the standard OpenTelemetry settings. The SDK reads most of them itself (endpoint,
 * headers, resource); they are checked here too so a typo fails start-up instead of being logged and
 * replaced by a default, and so a service that is not asked to trace never loads the SDK. The sampler
 * is built from what is read here (tracing-sdk.ts decides a root span before the SDK makes it).
 */
export interface TracingConfig {
  /** On when an OTLP endpoint is set, unless OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none. */
  enabled: boolean;
  protocol: (typeof OTLP_PROTOCOLS)[number];
  /** OTEL_TRACES_SAMPLER, and the ratio its traceidratio samplers keep (OTEL_TRACES_SAMPLER_ARG, 1 unset). */
  sampler: (typeof TRACE_SAMPLERS)[number];
  samplerRatio: number;
}

export function readTracingConfig(env: EnvReader): TracingConfig {
  const endpoint =
    env.optionalString('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? env.optionalString('OTEL_EXPORTER_OTLP_ENDPOINT');
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT']) {
    if (env.optionalString(name) !== undefined) env.url(name, 'http://127.0.0.1:4318');
  }
  const disabled = env.bool('OTEL_SDK_DISABLED', false);
  const exporter = env.oneOf('OTEL_TRACES_EXPORTER', 'otlp', ['otlp', 'none'] as const);
  const protocolName = env.optionalString('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL')
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = env.oneOf(protocolName, 'http/protobuf', OTLP_PROTOCOLS);
  const sampler = env.oneOf('OTEL_TRACES_SAMPLER', 'parentbased_always_on', TRACE_SAMPLERS);
  const ratio = env.optionalString('OTEL_TRACES_SAMPLER_ARG');
  let samplerRatio = 1;
  if (ratio !== undefined) {
    const value = /^\d*\.?\d+$/.test(ratio) ? Number(ratio) : Number.NaN;
    if (!(value >= 0 && value <= 1))
      env.fail(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got ${JSON.stringify(ratio)}`);
    else if (!sampler.endsWith('traceidratio'))
      env.fail(`OTEL_TRACES_SAMPLER_ARG is a ratio for traceidratio samplers; OTEL_TRACES_SAMPLER is ${sampler}`);
    else samplerRatio = value;
  }
  return { enabled: endpoint !== undefined && !disabled && exporter === 'otlp', protocol, sampler, samplerRatio };
}
