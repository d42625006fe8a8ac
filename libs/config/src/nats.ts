import type { EnvReader } from './env-reader.js';

/** NATS settings shared by every service. */
export interface NatsConfig {
  /** Comma-separated server URLs. */
  servers: string[];
  /** How long a request waits for its reply before it fails, ms. */
  requestTimeoutMs: number;
  /** On shutdown, how long a service waits after unsubscribing for in-flight handlers to finish, ms. */
  shutdownGraceMs: number;
}

export function readNatsConfig(env: EnvReader): NatsConfig {
  const servers = env
    .string('NATS_URL', 'nats://127.0.0.1:4222')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const server of servers) {
    if (!/^(nats|tls|ws|wss):\/\/[^\s/]+$/.test(server)) env.fail(`NATS_URL has an invalid server ${JSON.stringify(server)}`);
  }
  return {
    servers,
    requestTimeoutMs: env.int('NATS_REQUEST_TIMEOUT_MS', 10_000, { min: 100, max: 120_000 }),
    shutdownGraceMs: env.int('NATS_SHUTDOWN_GRACE_MS', 2_000, { min: 0, max: 60_000 }),
  };
}
