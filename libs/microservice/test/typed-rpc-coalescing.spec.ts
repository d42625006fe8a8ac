import {
  type BatchReply,
  type BatchRequest,
  type CatalogPeekReply,
  type CatalogReply,
  type CatalogRequest,
  type DebitReply,
  type DebitRequest,
  ErrorCode,
  QueueGroup,
  Subject,
} from '@appcat/contracts';
import { jest } from '@jest/globals';
import { Controller, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { NatsRpcClient, type RpcCallError } from '../src/nats-rpc-client.js';
import { TypedRpc } from '../src/typed-rpc.js';
import { WireException } from '../src/wire-exception.js';
import { type StandInService, startStandInService } from './support/stand-in-service.js';

/** A peek answers with the route it was asked for; the route "apps.similar" fails, for that item only. */
function peekAnswer(request: CatalogRequest): CatalogPeekReply {
  if (request.query.route === 'apps.similar')
    throw new WireException(ErrorCode.UpstreamHttpError, `no ${request.requestId}`);
  return { dataJson: JSON.stringify({ asked: request.requestId }), source: 'cache' };
}

@Controller()
class StandInController {
  @MessagePattern(Subject.CatalogPeek, { queue: QueueGroup.Catalog })
  peek(@Payload() request: CatalogRequest): CatalogPeekReply {
    return peekAnswer(request);
  }

  @MessagePattern(Subject.CatalogPeekBatch, { queue: QueueGroup.Catalog })
  peekBatch(@Payload() request: BatchRequest<CatalogRequest>): BatchReply<CatalogPeekReply> {
    return {
      results: request.items.map((item) => {
        try {
          return { ok: true, value: peekAnswer(item) };
        } catch (error) {
          return { ok: false, error: (error as WireException).getError() as { code: ErrorCode; message: string } };
        }
      }),
    };
  }

  // Debits have a lone handler only: a batch of them finds no responder.
  @MessagePattern(Subject.CreditsDebit, { queue: QueueGroup.Payments })
  debit(@Payload() request: DebitRequest): DebitReply {
    return { debitId: request.requestId, balance: '0' };
  }
}

@Module({ controllers: [StandInController] })
class StandInModule {}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('TypedRpc coalescing over a Nest NATS microservice', () => {
  let standIn: StandInService;
  const clients: NatsRpcClient[] = [];

  beforeAll(async () => {
    standIn = await startStandInService(StandInModule);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await standIn.stop();
  });

  /** A TypedRpc on a client of its own, and the subjects of what that client publishes, in order. */
  async function coalescing(batchMaxItems: number) {
    const client = await NatsRpcClient.connect(standIn.config, 'coalescing-test');
    clients.push(client);
    const published: string[] = [];
    const publish = client.connection.publish.bind(client.connection);
    jest.spyOn(client.connection, 'publish').mockImplementation((subject, ...rest) => {
      published.push(subject);
      publish(subject, ...rest);
    });
    const rpc = new TypedRpc(client, (error: RpcCallError) => error, { batchMaxItems });
    return { rpc, published };
  }

  const peek = (requestId: string, route: 'apps.get' | 'apps.similar' = 'apps.get'): CatalogRequest => ({
    query: { route, appId: '1', country: 'us' },
    requestId,
  });

  it('sends a lone request on its own subject in the same loop turn, with no timer', async () => {
    const { rpc, published } = await coalescing(64);
    const answer = rpc.result(Subject.CatalogPeek, peek('alone'));
    expect(published).toEqual([]);
    // The next callback of this turn's check phase: the request has left by then.
    await nextTurn();
    expect(published).toEqual([Subject.CatalogPeek]);
    await expect(answer).resolves.toEqual({ ok: true, value: { dataJson: '{"asked":"alone"}', source: 'cache' } });
  });

  it('sends the requests of one turn as one batch, answered item by item; a failing item fails alone', async () => {
    const { rpc, published } = await coalescing(64);
    const answers = Promise.all([
      rpc.result(Subject.CatalogPeek, peek('a')),
      rpc.result(Subject.CatalogPeek, peek('b', 'apps.similar')),
      rpc.result(Subject.CatalogPeek, peek('c')),
    ]);
    await nextTurn();
    expect(published).toEqual([Subject.CatalogPeekBatch]);
    const [a, b, c] = await answers;
    expect(a).toEqual({ ok: true, value: { dataJson: '{"asked":"a"}', source: 'cache' } });
    expect(b).toMatchObject({
      ok: false,
      error: { code: ErrorCode.UpstreamHttpError, message: 'no b', service: 'catalog' },
    });
    expect(c).toEqual({ ok: true, value: { dataJson: '{"asked":"c"}', source: 'cache' } });
  });

  it('bounds a batch: five requests with a bound of two leave as 2 + 2 + a lone one, all in the same turn', async () => {
    const { rpc, published } = await coalescing(2);
    const answers = Promise.all(['1', '2', '3', '4', '5'].map((id) => rpc.result(Subject.CatalogPeek, peek(id))));
    await nextTurn();
    expect(published).toEqual([Subject.CatalogPeekBatch, Subject.CatalogPeekBatch, Subject.CatalogPeek]);
    const results = await answers;
    expect(
      results.map((result) =>
        result.ok ? JSON.parse((result.value as CatalogReply).dataJson).asked : result.error.code,
      ),
    ).toEqual(['1', '2', '3', '4', '5']);
  });

  it('with a bound of 1, sends every request alone', async () => {
    const { rpc, published } = await coalescing(1);
    await Promise.all([rpc.result(Subject.CatalogPeek, peek('x')), rpc.result(Subject.CatalogPeek, peek('y'))]);
    expect(published).toEqual([Subject.CatalogPeek, Subject.CatalogPeek]);
  });

  it('fails every item of a batch the transport could not deliver with that typed error', async () => {
    const { rpc } = await coalescing(64);
    const debit = (id: string): DebitRequest => ({ keyHash: 'h', amount: '3000', route: 'apps.get', requestId: id });
    const results = await Promise.all([
      rpc.result(Subject.CreditsDebit, debit('p')),
      rpc.result(Subject.CreditsDebit, debit('q')),
    ]);
    for (const result of results)
      expect(result).toMatchObject({ ok: false, error: { code: ErrorCode.ServiceUnavailable, service: 'payments' } });
    // Alone, the same request is answered.
    await expect(rpc.result(Subject.CreditsDebit, debit('r'))).resolves.toEqual({
      ok: true,
      value: { debitId: 'r', balance: '0' },
    });
  });

  it('leaves a request with its own timeout uncoalesced', async () => {
    const { rpc, published } = await coalescing(64);
    await Promise.all([
      rpc.result(Subject.CatalogPeek, peek('t1'), { timeoutMs: 5_000 }),
      rpc.result(Subject.CatalogPeek, peek('t2'), { timeoutMs: 5_000 }),
    ]);
    expect(published).toEqual([Subject.CatalogPeek, Subject.CatalogPeek]);
  });
});
