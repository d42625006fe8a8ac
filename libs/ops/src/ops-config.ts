import type { EnvReader } from '@appcat/config';

export interface OpsConfig {
  /** Internal HTTP port for /healthz, /readyz and /metrics; 0 turns it off. */
  port: number;
  host: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
}

export function readOpsConfig(env: EnvReader, defaultPort: number): OpsConfig {
  return {
    port: env.int('OPS_PORT', defaultPort, { min: 0, max: 65535 }),
    host: env.string('OPS_HOST', '127.0.0.1'),
    logLevel: env.oneOf('LOG_LEVEL', 'info', ['debug', 'info', 'warn', 'error'] as const),
  };
}
