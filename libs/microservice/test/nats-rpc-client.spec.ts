import { ErrorCode } from '@appcat/contracts';
import { startNatsServer, type ManagedProcess } from '@appcat/testing';
import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { natsServerOptions } from '../src/nats-transport.js';
import { NatsRpcClient, RpcCallError } from '../src/nats-rpc-client.js';
import { JSON_TEXT_REPLY_HEADER, JsonTextReply } from '../src/json-text-reply.js';
import { WireException, WireExceptionFilter } from '../src/wire-exception.js';

let served = 0;

@Controller()
class EchoController {
  @MessagePattern('test.echo', { queue: 'echo' })
  echo(@Payload() data: { text: string }) {
    served += 1;
    return { echoed: data.text };
  }

  @MessagePattern('test.fail', { queue: 'echo' })
  fail(@Payload() data: { typed: boolean }) {
    if (data.typed) throw new WireException(ErrorCode.CreditKeyRevoked, 'key revoked');
    throw new Error('secret internals');
  }

  @MessagePattern('test.text', { queue: 'echo' })
  text(@Payload() data: { json: string }) {
    return JsonTextReply.of({ json: data.json, source: 'cache', age: 3 }, 'json');
  }

  @MessagePattern('test.slow', { queue: 'echo' })
  async slow() {
    await new Promise((r) => setTimeout(r, 500));
    return 'late';
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

describe('NatsRpcClient against a Nest NATS microservice', () => {
  let nats: ManagedProcess;
  const services: INestMicroservice[] = [];
  let client: NatsRpcClient;

  beforeAll(async () => {
    nats = await startNatsServer();
    // No healthy request comes near the default timeout, however loaded the machine; the timeout cases
    // set 50-100 ms against a handler that answers 500 ms after it was asked.
    const config = { servers: [nats.url], requestTimeoutMs: 30_000, shutdownGraceMs: 0 };
    for (let i = 0; i < 2; i++) {
      const app = await NestFactory.createMicroservice(EchoModule, {
        ...natsServerOptions(config, 'echo', `echo-${i}`),
        logger: false,
      });
      app.useGlobalFilters(new WireExceptionFilter());
      await app.listen();
      services.push(app);
    }
    client = await NatsRpcClient.connect(config, 'test-client');
  });

  afterAll(async () => {
    await client.close();
    for (const app of services) await app.close();
    await nats.stop();
  });

  it('matches every reply to its request when many leave in one loop turn', async () => {
    const texts = Array.from({ length: 300 }, (_, i) => `request-${i}`);
    const replies = await Promise.all(
      texts.map((text) => client.request<{ echoed: string }>('test.echo', { text }, { service: 'echo' })),
    );
    expect(replies.map((reply) => reply.echoed)).toEqual(texts);
  });

  it('gets each reply from exactly one replica of the queue group', async () => {
    served = 0;
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        client.request<{ echoed: string }>('test.echo', { text: `m${i}` }, { service: 'echo' }),
      ),
    );
    expect(replies.map((r) => r.echoed)).toEqual(Array.from({ length: 50 }, (_, i) => `m${i}`));
    expect(served).toBe(50);
  });

  it('carries typed errors and hides untyped ones', async () => {
    await expect(client.request('test.fail', { typed: true }, { service: 'echo' })).rejects.toMatchObject({
      code: ErrorCode.CreditKeyRevoked,
      message: 'key revoked',
    });
    const untyped = client.request('test.fail', { typed: false }, { service: 'echo' });
    await expect(untyped).rejects.toBeInstanceOf(RpcCallError);
    await expect(untyped).rejects.toMatchObject({ code: ErrorCode.Internal });
  });

  it('types transport failures: no responders and timeouts', async () => {
    await expect(client.request('test.nobody', {}, { service: 'nobody' })).rejects.toMatchObject({
      code: ErrorCode.ServiceUnavailable,
    });
    await expect(client.request('test.slow', {}, { service: 'echo', timeoutMs: 100 })).rejects.toMatchObject({
      code: ErrorCode.ServiceTimeout,
    });
  });

  it('ignores a reply that comes after its request timed out, and keeps serving', async () => {
    await expect(client.request('test.slow', {}, { service: 'echo', timeoutMs: 50 })).rejects.toMatchObject({
      code: ErrorCode.ServiceTimeout,
    });
    // The slow handler answers 500 ms later, to a request nobody waits for any more.
    await new Promise((r) => setTimeout(r, 600));
    await expect(client.request('test.echo', { text: 'after' }, { service: 'echo' })).resolves.toEqual({
      echoed: 'after',
    });
  });

  it('matches concurrent replies to their own requests, whatever order they come back in', async () => {
    const slow = client.request('test.slow', {}, { service: 'echo' });
    const fast = client.request<{ echoed: string }>('test.echo', { text: 'fast' }, { service: 'echo' });
    await expect(fast).resolves.toEqual({ echoed: 'fast' });
    await expect(slow).resolves.toBe('late');
  });

  it('fails the requests still waiting when it closes, instead of leaving them to time out', async () => {
    const closing = await NatsRpcClient.connect(
      { servers: [nats.url], requestTimeoutMs: 60_000, shutdownGraceMs: 0 },
      'closing-client',
    );
    const waiting = closing.request('test.slow', {}, { service: 'echo' });
    const began = Date.now();
    await closing.close();
    await expect(waiting).rejects.toMatchObject({ code: ErrorCode.ServiceUnavailable });
    // Failed at the close, not left to its minute-long timeout.
    expect(Date.now() - began).toBeLessThan(30_000);
  });

  it('carries a JSON-text reply as the message body as it is, and gives the caller the same object back', async () => {
    const json = '{"name":"Caf\u00e9 \\"quoted\\"","list":[1,2.5,null]}';
    expect(await client.request('test.text', { json }, { service: 'echo' })).toEqual({ json, source: 'cache', age: 3 });
    // On the wire: the body is the text byte for byte (nothing escaped), the other fields in the header.
    const raw = await client.connection.request(
      'test.text',
      JSON.stringify({ pattern: 'test.text', data: { json }, id: 'x' }),
      { timeout: 30_000 },
    );
    expect(raw.string()).toBe(json);
    expect(JSON.parse(raw.headers!.get(JSON_TEXT_REPLY_HEADER))).toEqual({
      field: 'json',
      rest: { source: 'cache', age: 3 },
    });
  });
});
