import { ServiceOps } from '@appcat/ops';
import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { sendEnvelope } from '../envelope/envelope.js';

/** Liveness and readiness on the public port too, for load balancers that probe only that. Free. */
@Controller()
export class HealthController {
  constructor(@Inject(ServiceOps) private readonly ops: ServiceOps) {}

  @Get('healthz')
  healthz(@Res() reply: FastifyReply): void {
    sendEnvelope(reply, 200, 'ok', { status: 'alive' });
  }

  @Get('readyz')
  async readyz(@Res() reply: FastifyReply): Promise<void> {
    const { ready, checks } = await this.ops.readiness.evaluate();
    sendEnvelope(reply, ready ? 200 : 503, ready ? 'ok' : 'not ready', { checks });
  }
}
