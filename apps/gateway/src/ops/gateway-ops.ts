import { GatewayMetrics } from '@appcat/ops';
import { Inject, Injectable } from '@nestjs/common';

/**
 * What the gateway's request handlers count through (`ops.metrics`). The ops port, readiness and the
 * graceful stop (SHUTDOWN_DELAY_MS) are the shared ServiceOps (libs/ops), wired in app.module.ts.
 */
@Injectable()
export class GatewayOps {
  constructor(@Inject(GatewayMetrics) readonly metrics: GatewayMetrics) {}
}
