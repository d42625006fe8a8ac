import type { NatsRpcClient } from '@appcat/microservice';
import type { ReadinessCheck, ReadinessChecks } from '@appcat/ops';
import { Inject, Injectable } from '@nestjs/common';
import { NATS_RPC } from '../nats-rpc.provider.js';

/** The gateway is ready while its own NATS connection, the one every call goes through, answers. */
@Injectable()
export class GatewayReadiness implements ReadinessChecks {
  readonly checks: ReadinessCheck[];

  constructor(@Inject(NATS_RPC) nats: NatsRpcClient) {
    this.checks = [{ name: 'nats', check: () => nats.connection.flush() }];
  }
}
