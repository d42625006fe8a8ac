import type { NatsConfig } from '@appcat/config';
import { type NatsOptions, Transport } from '@nestjs/microservices';

/**
 * Transport options for a service that answers on NATS. `queue` puts every handler in the service's
 * queue group so each request reaches exactly one replica; handlers also name the group on their
 * pattern, so the guarantee holds even if this default is changed.
 */
export function natsServerOptions(nats: NatsConfig, queue: string, name: string): NatsOptions {
  return {
    transport: Transport.NATS,
    options: {
      servers: nats.servers,
      queue,
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      gracefulShutdown: true,
      gracePeriod: nats.shutdownGraceMs,
      user: nats.user,
      pass: nats.password,
      inboxPrefix: nats.inboxPrefix,
    },
  };
}
