import {
  type CatalogReply,
  type CatalogRequest,
  type DebitRequest,
  ErrorCode,
  QueueGroup,
  Subject,
} from '@appcat/contracts';
import { Controller, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { NatsRpcClient, type RpcCallError } from '../src/nats-rpc-client.js';
import { TypedRpc } from '../src/typed-rpc.js';
import { WireException } from '../src/wire-exception.js';
import { type StandInService, startStandInService } from './support/stand-in-service.js';

class TranslatedError extends Error {
  constructor(readonly from: RpcCallError) {
    super(`translated: ${from.code}`);
  }
}

@Controller()
class StandInController {
  @MessagePattern(Subject.CatalogFetch, { queue: QueueGroup.Catalog })
  fetch(@Payload() request: CatalogRequest): CatalogReply {
    return { data: { asked: request.query.route }, source: 'upstream', age: 0 } as unknown as CatalogReply;
  }

  @MessagePattern(Subject.CreditsDebit, { queue: QueueGroup.Payments })
  debit(@Payload() request: DebitRequest) {
    throw new WireException(ErrorCode.CreditInsufficient, `not enough credit for ${request.amount}`);
  }
}

@Module({ controllers: [StandInController] })
class StandInModule {}

describe('TypedRpc over a Nest NATS microservice', () => {
  let standIn: StandInService;
  let client: NatsRpcClient;
  let rpc: TypedRpc<TranslatedError>;

  beforeAll(async () => {
    standIn = await startStandInService(StandInModule);
    client = await NatsRpcClient.connect(standIn.config, 'typed-rpc-test');
    rpc = new TypedRpc(client, (error) => new TranslatedError(error));
  });

  afterAll(async () => {
    await client.close();
    await standIn.stop();
  });

  const query: CatalogRequest['query'] = { route: 'apps.get', appId: '1', country: 'us' };

  it('gives the reply as a value, or the typed error as a value, without throwing', async () => {
    const fetched = await rpc.result(Subject.CatalogFetch, { query, requestId: 'r1' });
    expect(fetched).toEqual({ ok: true, value: { data: { asked: 'apps.get' }, source: 'upstream', age: 0 } });

    const debited = await rpc.result(Subject.CreditsDebit, {
      keyHash: 'h',
      amount: '3000',
      route: 'apps.get',
      requestId: 'r2',
    });
    expect(debited.ok).toBe(false);
    if (debited.ok) return;
    expect(debited.error).toMatchObject({
      code: ErrorCode.CreditInsufficient,
      message: 'not enough credit for 3000',
      service: 'payments',
    });
  });

  it('throws the caller’s own error, made from the typed one, from request', async () => {
    await expect(rpc.request(Subject.CatalogFetch, { query, requestId: 'r3' })).resolves.toMatchObject({
      source: 'upstream',
    });
    const failed = rpc.request(Subject.CreditsDebit, {
      keyHash: 'h',
      amount: '3000',
      route: 'apps.get',
      requestId: 'r4',
    });
    await expect(failed).rejects.toBeInstanceOf(TranslatedError);
    await expect(failed).rejects.toMatchObject({ message: `translated: ${ErrorCode.CreditInsufficient}` });
  });

  it('names the service from the subject in transport errors', async () => {
    const nobody = await rpc.result(Subject.CreditsBalance, { keyHash: 'h' });
    expect(nobody).toMatchObject({
      ok: false,
      error: { code: ErrorCode.ServiceUnavailable, message: 'payments service unavailable' },
    });
  });
});
