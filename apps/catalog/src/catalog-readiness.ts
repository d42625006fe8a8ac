import type { ReadinessCheck, ReadinessChecks } from '@appcat/ops';
import { Inject, Injectable } from '@nestjs/common';
import { CatalogConnections } from './catalog-connections.js';

/**
 * A catalog replica is ready once its shared Redis answers (besides NATS, which the ops port probes). It
 * also works without Redis, uncached, but a replica that has it is the better one to send traffic to.
 */
@Injectable()
export class CatalogReadiness implements ReadinessChecks {
  readonly checks: ReadinessCheck[];

  constructor(@Inject(CatalogConnections) connections: CatalogConnections) {
    this.checks = [{ name: 'redis', check: () => connections.pingRedis() }];
  }
}
