/*
 * NestServerNatsAdapter relies on Nest's ServerNats beyond its documented options. These checks fail when
 * a Nest upgrade changes what it relies on: the methods it overrides and the members it calls, its
 * private connection and subscriptions, and the behaviour of Nest's own server that the close override
 * exists for.
 */
import { ErrorCode } from '@appcat/contracts';
import { type ManagedProcess, startNatsServer } from '@appcat/testing';
import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type CustomStrategy, MessagePattern, ServerNats } from '@nestjs/microservices';
import { natsServerOptions } from '../src/nats-transport.js';
import { NatsRpcClient } from '../src/nats-rpc-client.js';
import { NestServerNatsAdapter, serverNatsState } from '../src/nest-server-nats.js';

let startedSlow: () => void = () => undefined;

@Controller()
class SlowController {
  @MessagePattern('adapter.slow', { queue: 'adapter' })
  async slow(): Promise<string> {
    startedSlow();
    await new Promise((resolve) => setTimeout(resolve, 300));
    return 'answered';
  }

  @MessagePattern('adapter.echo', { queue: 'adapter' })
  echo(): string {
    return 'echo';
  }
}

@Module({ controllers: [SlowController] })
class SlowModule {}

describe("Nest's ServerNats, as NestServerNatsAdapter relies on it", () => {
  let nats: ManagedProcess;
  let client: NatsRpcClient;
  const config = () => ({ servers: [nats.url], requestTimeoutMs: 30_000, shutdownGraceMs: 5_000 });
  const serve = async (strategy: CustomStrategy['strategy']): Promise<INestMicroservice> => {
    const app = await NestFactory.createMicroservice(SlowModule, { strategy, logger: false });
    await app.listen();
    // listen() resolves once the subscriptions are sent, not once the server has them: a request from
    // another connection could find no responder. A flush's round trip comes back after they are in.
    await serverNatsState(strategy as ServerNats).connection?.flush();
    return app;
  };

  beforeAll(async () => {
    nats = await startNatsServer();
    client = await NatsRpcClient.connect(config(), 'adapter-test');
  });
  afterAll(async () => {
    await client.close();
    await nats.stop();
  });

  it('has every method the adapter overrides, taking the parameters the adapter passes', () => {
    const overridden = Object.getOwnPropertyNames(NestServerNatsAdapter.prototype).filter(
      (name) => name !== 'constructor',
    );
    expect(overridden.sort()).toEqual([
      'close',
      'getHandlerByPattern',
      'getMessageHandler',
      'getPublisher',
      'handleMessage',
    ]);
    for (const name of overridden) {
      const nest = (ServerNats.prototype as unknown as Record<string, unknown>)[name];
      expect({ name, type: typeof nest }).toEqual({ name, type: 'function' });
      expect({ name, parameters: (nest as (...args: unknown[]) => unknown).length }).toEqual({
        name,
        parameters: (NestServerNatsAdapter.prototype as unknown as Record<string, (...args: unknown[]) => unknown>)[
          name
        ].length,
      });
    }
    // What the adapter's handleMessage calls as Nest's own does (Server's, inherited), with Nest's declared parameters.
    const server = ServerNats.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
    expect({
      handleEvent: server.handleEvent.length,
      runWithProcessingHooks: server.runWithProcessingHooks.length,
      send: server.send.length,
    }).toEqual({
      handleEvent: 3,
      runWithProcessingHooks: 2,
      send: 2,
    });
  });

  it('keeps its connection and one subscription per handler where the adapter reads them, and plain subjects under themselves', async () => {
    const strategy = natsServerOptions(config(), 'adapter', 'adapter-state').strategy as NestServerNatsAdapter;
    expect(serverNatsState(strategy).connection).toBeNull();
    const app = await serve(strategy);
    const { connection, subscriptions } = serverNatsState(strategy);
    expect(connection?.isClosed()).toBe(false);
    expect(subscriptions.map((subscription) => subscription.getSubject()).sort()).toEqual([
      'adapter.echo',
      'adapter.slow',
    ]);
    // Nest's own lookup (JSON.parse first) finds the handler the adapter finds directly.
    const nestLookup = ServerNats.prototype.getHandlerByPattern.call(strategy, 'adapter.echo');
    expect(nestLookup).not.toBeNull();
    expect(strategy.getHandlerByPattern('adapter.echo')).toBe(nestLookup);
    expect(await client.request('adapter.echo', {}, { service: 'adapter' })).toBe('echo');
    await app.close();
    expect(serverNatsState(strategy).connection).toBeNull();
  });

  it("Nest's own server still drops a request in flight when it closes; the adapted one answers it first", async () => {
    // The timeout only ends the wait for a reply that can no longer come; it decides nothing.
    const stopWhileHandling = async (strategy: CustomStrategy['strategy'], timeoutMs: number) => {
      const app = await serve(strategy);
      const started = new Promise<void>((resolve) => (startedSlow = resolve));
      const answer = client.request<string>('adapter.slow', {}, { service: 'adapter', timeoutMs }).then(
        (value) => ({ answered: value }),
        (error: { code: ErrorCode }) => ({ failed: error.code }),
      );
      // Should the request still find no one, the answer comes first and says so, instead of a hang.
      const first = await Promise.race([started.then(() => null), answer]);
      if (first) return first;
      await app.close();
      return answer;
    };
    // If Nest starts draining by itself, this fails: the adapter's close() may then go.
    expect(await stopWhileHandling(new ServerNats({ servers: [nats.url], queue: 'adapter' }), 2_000)).toEqual({
      failed: ErrorCode.ServiceTimeout,
    });
    expect(await stopWhileHandling(natsServerOptions(config(), 'adapter', 'adapter-drain').strategy, 30_000)).toEqual({
      answered: 'answered',
    });
  });
});
