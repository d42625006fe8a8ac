import type { EnvReader } from '@appcat/config';
import { readTracingConfig, type TracingConfig } from './tracing-config.js';

/** Measured in docs/benchmarks.md: keeps every service under load below 150 MB resident. */
export const DEFAULT_HEAP_GROWTH_PERCENT = 30;

export interface OpsConfig {
  /** Internal HTTP port for /healthz, /readyz and /metrics; 0 turns it off. */
  port: number;
  host: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** How far the old generation may grow past the live heap, in percent (heap-growth.ts); 0 leaves V8's own choice. */
  heapGrowthPercent: number;
  /** OpenTelemetry traces, from the standard OTEL_* settings; off unless an OTLP endpoint is set. */
  tracing: TracingConfig;
}

export function readOpsConfig(env: EnvReader, defaultPort: number): OpsConfig {
  return {
    port: env.int('OPS_PORT', defaultPort, { min: 0, max: 65535 }),
    host: env.string('OPS_HOST', '127.0.0.1'),
    logLevel: env.oneOf('LOG_LEVEL', 'info', ['debug', 'info', 'warn', 'error'] as const),
    heapGrowthPercent: env.int('HEAP_GROWTH_PERCENT', DEFAULT_HEAP_GROWTH_PERCENT, { min: 0, max: 300 }),
    tracing: readTracingConfig(env),
  };
}
