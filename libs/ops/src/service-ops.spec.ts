import { freePort, type ManagedProcess, startNatsServer } from '@appcat/testing';
import { Inject, Injectable, type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Counter, Registry } from 'prom-client';
import { METRICS_REGISTRY } from './metrics.js';
import type { ReadinessCheck } from './ops-server.js';
import { opsProviders, type ReadinessChecks, ServiceOps } from './service-ops.js';

let storeUp = true;

@Injectable()
class DemoMetrics {
  readonly calls: Counter;
  constructor(@Inject(METRICS_REGISTRY) readonly registry: Registry) {
    this.calls = new Counter({ name: 'demo_calls_total', help: 'calls', registers: [registry] });
  }
}

@Injectable()
class DemoReadiness implements ReadinessChecks {
  readonly checks: ReadinessCheck[] = [
    { name: 'store', check: async () => (storeUp ? undefined : Promise.reject(new Error('store down'))) },
  ];
}

describe('the ops providers of a service', () => {
  let nats: ManagedProcess;
  let app: INestApplicationContext;
  let base: string;

  beforeAll(async () => {
    nats = await startNatsServer();
    const port = await freePort();
    @Module({
      providers: opsProviders({
        service: 'demo',
        ops: {
          port,
          host: '127.0.0.1',
          logLevel: 'error',
          heapGrowthPercent: 0,
          tracing: { enabled: false, protocol: 'http/protobuf', sampler: 'parentbased_always_on', samplerRatio: 1 },
        },
        natsProbe: { servers: [nats.url], requestTimeoutMs: 1000, shutdownGraceMs: 0 },
        shutdownDelayMs: 3_000,
        metrics: DemoMetrics,
        readiness: DemoReadiness,
      }),
    })
    class DemoModule {}
    app = await NestFactory.createApplicationContext(DemoModule, { logger: false });
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await nats.stop();
  });

  it("serves the service's readiness with the NATS probe's, and its metrics on a registry labelled with its name", async () => {
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({
      status: 200,
      message: 'ok',
      data: { checks: { nats: 'ok', store: 'ok' } },
    });
    storeUp = false;
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({
      status: 503,
      message: 'not ready',
      data: { checks: { nats: 'ok', store: 'failing: store down' } },
    });
    storeUp = true;
    app.get(DemoMetrics).calls.inc();
    expect(await (await fetch(`${base}/metrics?name=demo_calls_total`)).text()).toMatch(
      /^demo_calls_total\{service="demo"\} 1$/m,
    );
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({
      status: 200,
      message: 'ok',
      data: { status: 'alive' },
    });
  });

  it('reports draining at once on shutdown, keeps answering for the delay, then closes the port', async () => {
    const ops = app.get(ServiceOps);
    const closed = app.close();
    // Nest runs the shutdown hooks in turn; the delay holds the port open while readiness says draining.
    let body: { status: number; data: { checks: Record<string, string> } };
    do body = (await (await fetch(`${base}/readyz`)).json()) as typeof body;
    while (body.data.checks.shutdown !== 'draining');
    expect(body.status).toBe(503);
    expect((await ops.readiness.evaluate()).ready).toBe(false);
    await closed;
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });
});
