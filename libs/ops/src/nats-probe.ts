import type { NatsConfig } from '@appcat/config';
import { connect, type NatsConnection } from '@nats-io/transport-node';

/**
 * A small connection of a service's own for its readiness check, with the service's credentials: it
 * asks the server, not the Nest transport (whose connection Nest keeps to itself). Waits for the first
 * connection and reconnects forever.
 */
export function connectNatsProbe(config: NatsConfig, name: string): Promise<NatsConnection> {
  const { servers, user, password: pass, inboxPrefix } = config;
  return connect({ servers, user, pass, inboxPrefix, name, maxReconnectAttempts: -1, waitOnFirstConnect: true });
}
