import type { NatsConfig } from '@appcat/config';
import type { CustomStrategy } from '@nestjs/microservices';
import { DrainingNatsServer } from './draining-nats-server.js';

/**
 * Transport for a service that answers on NATS: Nest's NATS server, stopping cleanly
 * ({@link DrainingNatsServer}). `queue` puts every handler in the service's queue group so each
 * request reaches exactly one replica; handlers also name the group on their pattern, so the
 * guarantee holds even if this default is changed.
 */
export function natsServerOptions(nats: NatsConfig, queue: string, name: string): CustomStrategy {
  return {
    strategy: new DrainingNatsServer({
      servers: nats.servers,
      queue,
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      gracePeriod: nats.shutdownGraceMs,
      user: nats.user,
      pass: nats.password,
      inboxPrefix: nats.inboxPrefix,
    }),
  };
}
