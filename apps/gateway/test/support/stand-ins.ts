/*
 * Payments and catalog as stand-ins on a private nats-server, for the gateway's own suites: each case
 * chooses what they answer and counts what they were asked. They answer in Nest's NATS wire format
 * (`{id, response | err, isDisposed}`), so the gateway's real client talks to them unchanged.
 */
import { Subject, type WireError } from '@appcat/contracts';
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

  /** The calls once there are `count` of them, for a request sent without waiting for its reply (a release). */
  async asked(count: number, timeoutMs = 5_000): Promise<Record<string, unknown>[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.calls.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    return this.calls;
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

/** The balance every credit stand-in reports by default, µUSD (4.997000 USD). */
export const STAND_IN_BALANCE = '4997000';

/**
 * A batch subject as a stand-in over `inner`: each item is answered by `inner`'s handler (a thrown
 * value is that item's error) and counted among `inner`'s calls, as if it had come alone.
 */
export function serveBatchOf(responder: NatsConnection, subject: string, inner: StandIn): StandIn {
  return serveStandIn(responder, subject, (data) => ({
    results: (data.items as Record<string, unknown>[]).map((item) => {
      inner.calls.push(item);
      try {
        return { ok: true, value: inner.handler(item) };
      } catch (error) {
        return { ok: false, error: error as WireError };
      }
    }),
  }));
}

/**
 * Payments' credit path as stand-ins: `hold` decides what a one-step debit and a reservation answer
 * alike (throw a wire error for a refusal) and counts both; captures and releases are stand-ins of
 * their own, a capture answering the default balance unless told otherwise. Batches count their items.
 */
export function serveCredits(responder: NatsConnection, hold: StandIn): { capture: StandIn; release: StandIn } {
  const capture = new StandIn((data) => ({ debitId: data.reservationId, balance: STAND_IN_BALANCE }));
  const release = new StandIn(() => ({ released: true }));
  const subjects: [string, string, StandIn][] = [
    [Subject.CreditsDebit, Subject.CreditsDebitBatch, hold],
    [Subject.CreditsReserve, Subject.CreditsReserveBatch, hold],
    [Subject.CreditsCapture, Subject.CreditsCaptureBatch, capture],
    [Subject.CreditsRelease, Subject.CreditsReleaseBatch, release],
  ];
  for (const [subject, batchSubject, standIn] of subjects) {
    serveStandIn(responder, subject, standIn);
    serveBatchOf(responder, batchSubject, standIn);
  }
  return { capture, release };
}

/** A held x402 payment as payments.x402.authorize answers it (opaque to the gateway). */
export const STAND_IN_X402_HOLD = {
  paymentId: 'eip155:8453:0xP:0x01',
  claim: 'c1',
  requirement: { scheme: 'exact', network: 'eip155:8453', amount: '3000', asset: '0xA', payTo: '0xB' },
  settleableUntilMs: 4_102_444_800_000,
};

/**
 * Payments' x402 path for calls as stand-ins: `authorize` decides what a payment's check answers (a
 * hold by default; throw a wire error for a refusal) and counts the payments; `settle` answers
 * `receipt`; releases are counted. `payAtOnce` (a near-cache hit's payments.x402.pay) refuses what
 * `authorize` refuses, without counting there, and answers `receipt`.
 */
export function serveX402Holds(
  responder: NatsConnection,
  authorize: StandIn,
  receipt: Record<string, unknown>,
): { settle: StandIn; release: StandIn; payAtOnce: StandIn } {
  serveStandIn(responder, Subject.X402Authorize, authorize);
  const settle = serveStandIn(responder, Subject.X402Settle, new StandIn(() => receipt));
  const release = serveStandIn(responder, Subject.X402Release, new StandIn(() => ({ released: true })));
  const payAtOnce = serveStandIn(
    responder,
    Subject.X402Pay,
    new StandIn((data) => {
      authorize.handler(data);
      return receipt;
    }),
  );
  return { settle, release, payAtOnce };
}

/** What the `hold` stand-in of serveCredits answers by default: a debit's and a reservation's reply in one. */
export function heldOrDebited(data: Record<string, unknown>): unknown {
  return {
    debitId: `d-${String(data.requestId)}`,
    reservationId: `r-${String(data.requestId)}`,
    balance: STAND_IN_BALANCE,
  };
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
      ops: {
        port: 0,
        host: '127.0.0.1',
        logLevel: 'error',
        heapGrowthPercent: 0,
        tracing: { enabled: false, protocol: 'http/protobuf', sampler: 'parentbased_always_on', samplerRatio: 1 },
      },
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
