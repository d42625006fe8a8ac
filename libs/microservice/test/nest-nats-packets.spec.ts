/*
 * Nest's NATS packet format, which NatsRpcClient and DrainingNatsServer write themselves
 * (nest-nats-packets.ts), round-tripped with Nest's own ClientNats and ServerNats over a real nats-server:
 * a Nest release that changes the format fails here.
 */
import { ErrorCode, type WireError } from '@appcat/contracts';
import { type ManagedProcess, startNatsServer } from '@appcat/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Controller, type INestMicroservice, Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  ClientNats,
  type CustomStrategy,
  EventPattern,
  MessagePattern,
  Payload,
  ServerNats,
} from '@nestjs/microservices';
import { firstValueFrom } from 'rxjs';
import { natsServerOptions } from '../src/nats-transport.js';
import { NatsRpcClient, RpcCallError } from '../src/nats-rpc-client.js';
import { decodeNestReply, encodeNestReply, encodeNestRequest } from '../src/nest-nats-packets.js';
import { WireException, WireExceptionFilter } from '../src/wire-exception.js';

let eventSeen: (data: unknown) => void = () => undefined;

@Controller()
class PacketController {
  @MessagePattern('packets.echo')
  echo(@Payload() data: { text: string }) {
    return { echoed: data.text };
  }

  @MessagePattern('packets.refuse')
  refuse(): never {
    throw new WireException(ErrorCode.CreditKeyRevoked, 'key revoked');
  }

  @EventPattern('packets.event')
  event(@Payload() data: unknown): void {
    eventSeen(data);
  }
}

@Module({ controllers: [PacketController] })
class PacketModule {}

describe("Nest's NATS packet format, between Nest's own client and server and ours", () => {
  let nats: ManagedProcess;
  let raw: NatsConnection;
  const config = () => ({ servers: [nats.url], requestTimeoutMs: 30_000, shutdownGraceMs: 0 });
  const serve = async (strategy: CustomStrategy['strategy']): Promise<INestMicroservice> => {
    const app = await NestFactory.createMicroservice(PacketModule, { strategy, logger: false });
    app.useGlobalFilters(new WireExceptionFilter());
    await app.listen();
    return app;
  };

  beforeAll(async () => {
    // ClientNats logs its connection's status changes through Nest's static logger.
    Logger.overrideLogger(false);
    nats = await startNatsServer();
    raw = await connect({ servers: nats.url });
  });
  afterAll(async () => {
    await raw.close();
    await nats.stop();
  });

  it("Nest's ClientNats sends the request packet we send, and reads the reply packet we write", async () => {
    const sent: { id: string }[] = [];
    raw.subscribe('packets.capture', {
      callback: (_error, message) => {
        const packet = message.json<{ id: string }>();
        sent.push(packet);
        message.respond(encodeNestReply({ id: packet.id, response: { seen: true }, isDisposed: true }));
      },
    });
    await raw.flush();
    const nest = new ClientNats({ servers: [nats.url] });
    try {
      expect(await firstValueFrom(nest.send('packets.capture', { a: 1 }))).toEqual({ seen: true });
    } finally {
      await nest.close();
    }
    expect(sent).toEqual([{ pattern: 'packets.capture', data: { a: 1 }, id: expect.any(String) }]);
    expect(JSON.parse(encodeNestRequest('packets.capture', { a: 1 }, sent[0].id))).toEqual(sent[0]);
  });

  it("our client's requests are answered by Nest's own ServerNats, replies and typed errors alike", async () => {
    const app = await serve(new ServerNats({ servers: [nats.url] }));
    const client = await NatsRpcClient.connect(config(), 'packets-client');
    try {
      expect(await client.request('packets.echo', { text: 'hi' }, { service: 'nest' })).toEqual({ echoed: 'hi' });
      const refused = await client.request('packets.refuse', {}, { service: 'nest' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RpcCallError);
      expect(refused).toMatchObject({ code: ErrorCode.CreditKeyRevoked, message: 'key revoked' });
      // The reply as Nest wrote it is the packet decodeNestReply reads.
      const reply = await raw.request('packets.echo', encodeNestRequest('packets.echo', { text: 'raw' }, 'r1'), {
        timeout: 30_000,
      });
      expect(decodeNestReply(reply)).toEqual({ id: 'r1', response: { echoed: 'raw' }, isDisposed: true });
    } finally {
      await client.close();
      await app.close();
    }
  });

  it("Nest's ClientNats is answered by our server: replies, typed errors and events", async () => {
    const app = await serve(natsServerOptions(config(), 'packets', 'packets-server').strategy);
    const nest = new ClientNats({ servers: [nats.url] });
    try {
      expect(await firstValueFrom(nest.send('packets.echo', { text: 'hello' }))).toEqual({ echoed: 'hello' });
      const refused = await firstValueFrom(nest.send('packets.refuse', {})).catch((error: unknown) => error);
      expect(refused).toEqual({ code: ErrorCode.CreditKeyRevoked, message: 'key revoked' } satisfies WireError);
      const event = new Promise((resolve) => (eventSeen = resolve));
      await firstValueFrom(nest.emit('packets.event', { n: 1 }), { defaultValue: undefined });
      expect(await event).toEqual({ n: 1 });
    } finally {
      await nest.close();
      await app.close();
    }
  });
});
