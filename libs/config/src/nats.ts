import type { EnvReader } from './env-reader.js';

/** NATS settings shared by every service. */
export interface NatsConfig {
  /** Comma-separated server URLs. */
  servers: string[];
  /** How long a request waits for its reply before it fails, ms. */
  requestTimeoutMs: number;
  /** On shutdown, how long a service waits after unsubscribing for in-flight handlers to finish, ms. */
  shutdownGraceMs: number;
  /** Credentials of this service's NATS user (the server's authorization decides what it may publish). */
  user?: string;
  password?: string;
  /**
   * Prefix of this client's reply subjects. Give each NATS user its own (and allow it only that) so no
   * client can subscribe to another's replies, such as the reply that carries a new API key.
   */
  inboxPrefix?: string;
}

export function readNatsConfig(env: EnvReader): NatsConfig {
  const servers = env
    .string('NATS_URL', 'nats://127.0.0.1:4222')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const server of servers) {
    if (!/^(nats|tls|ws|wss):\/\/[^\s/]+$/.test(server))
      env.fail(`NATS_URL has an invalid server ${JSON.stringify(server)}`);
  }
  return {
    servers,
    requestTimeoutMs: env.int('NATS_REQUEST_TIMEOUT_MS', 10_000, { min: 100, max: 120_000 }),
    shutdownGraceMs: env.int('NATS_SHUTDOWN_GRACE_MS', 2_000, { min: 0, max: 60_000 }),
    user: env.optionalString('NATS_USER'),
    password: env.optionalString('NATS_PASSWORD'),
    inboxPrefix: env.optionalString('NATS_INBOX_PREFIX'),
  };
}
