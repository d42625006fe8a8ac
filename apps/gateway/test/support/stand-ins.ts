/*
 * Payments and catalog as stand-ins on a private nats-server, for the gateway's own suites: each case
 * chooses what they answer and counts what they were asked. They answer in Nest's NATS wire format
 * (`{id, response | err, isDisposed}`), so the gateway's real client talks to them unchanged.
 */
import type { WireError } from '@appcat/contracts';
import type { NatsConnection } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { GatewayConfig } from '../../src/config.js';
import { createGatewayApp } from '../../src/index.js';

export type StandInHandler = (data: Record<string, unknown>) => unknown;

/** One subject's stand-in: its current answer (a thrown value becomes a wire error) and the requests it got. */
export class StandIn {
  calls: Record<string, unknown>[] = [];
  constructor(
    public handler: StandInHandler,
    readonly initial: StandInHandler = handler,
  ) {}

  reset(): void {
    this.calls = [];
    this.handler = this.initial;
  }
}

/** payments.x402.accepts as a stand-in: one entry per network of the offer's set (Base; Base and Polygon extended). */
export function acceptsFor(data: Record<string, unknown>): unknown {
  const offer = data.offer as { price: string; networks: string };
  const networks = offer.networks === 'extended' ? ['eip155:8453', 'eip155:137'] : ['eip155:8453'];
  return {
    accepts: networks.map((network) => ({ scheme: 'exact', network, amount: offer.price, asset: '0xA', payTo: '0xB' })),
  };
}

export function serveStandIn(responder: NatsConnection, subject: string, standIn: StandIn | StandInHandler): StandIn {
  const served = standIn instanceof StandIn ? standIn : new StandIn(standIn);
  responder.subscribe(subject, {
    queue: 'stand-in',
    callback: (_err, msg) => {
      const packet = msg.json<{ id: string; data: Record<string, unknown> }>();
      served.calls.push(packet.data);
      try {
        msg.respond(JSON.stringify({ id: packet.id, response: served.handler(packet.data), isDisposed: true }));
      } catch (err) {
        msg.respond(JSON.stringify({ id: packet.id, err: err as WireError, isDisposed: true }));
      }
    },
  });
  return served;
}

/**
 * A gateway on a free port talking to `natsUrl`. Its NATS timeouts are well under jest's per-test
 * limit, so a silent stand-in fails the test with a clear error, and far above any healthy round trip
 * on a loaded machine (1 s was not). Requests are not coalesced (the stand-ins answer each subject
 * alone) unless `overrides` say so.
 */
export async function startGatewayOnStandIns(
  natsUrl: string,
  publicBaseUrl = 'http://gateway.test',
  overrides: Partial<GatewayConfig> = {},
): Promise<{ app: NestFastifyApplication; base: string }> {
  const app = await createGatewayApp(
    {
      store: 'apple',
      host: '127.0.0.1',
      port: 0,
      publicBaseUrl,
      nats: { servers: [natsUrl], requestTimeoutMs: 15_000, shutdownGraceMs: 0 },
      x402PayTimeoutMs: 15_000,
      bodyLimitBytes: 16_384,
      trustProxy: false,
      ops: { port: 0, host: '127.0.0.1', logLevel: 'error', heapGrowthPercent: 0 },
      shutdownDelayMs: 0,
      rpcBatchMax: 1,
      nearCacheMs: 1000,
      nearCacheMaxBytes: 1 << 20,
      topupSolanaRpcUrl: 'http://127.0.0.1:8899',
      ...overrides,
    },
    { logger: false },
  );
  await app.listen(0, '127.0.0.1');
  return { app, base: `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}` };
}
