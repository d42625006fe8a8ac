import { Writable } from 'node:stream';
import { createJsonLogger, JsonNestLogger } from './logger.js';
import { createRegistry, GatewayMetrics } from './metrics.js';
import { Readiness, startOpsServer } from './ops-server.js';

describe('ops server', () => {
  it('answers liveness always, readiness from its checks, and Prometheus metrics', async () => {
    let redisUp = true;
    const readiness = new Readiness([
      { name: 'nats', check: async () => undefined },
      { name: 'redis', check: async () => (redisUp ? undefined : Promise.reject(new Error('connection refused'))) },
    ]);
    const registry = createRegistry('gateway');
    new GatewayMetrics(registry).requests.inc({ route: 'apps.search', status: '200' });
    const ops = await startOpsServer({ host: '127.0.0.1', port: 0, readiness, registry });
    const base = `http://127.0.0.1:${ops.port}`;
    try {
      expect(await (await fetch(`${base}/healthz`)).json()).toEqual({
        status: 200,
        message: 'ok',
        data: { status: 'alive' },
      });
      expect((await fetch(`${base}/readyz`)).status).toBe(200);

      redisUp = false;
      const unready = await fetch(`${base}/readyz`);
      expect(unready.status).toBe(503);
      expect(await unready.json()).toEqual({
        status: 503,
        message: 'not ready',
        data: { checks: { nats: 'ok', redis: 'failing: connection refused' } },
      });

      redisUp = true;
      readiness.drain();
      expect(
        ((await (await fetch(`${base}/readyz`)).json()) as { data: { checks: Record<string, string> } }).data.checks
          .shutdown,
      ).toBe('draining');

      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(/appcat_http_requests_total\{route="apps.search",status="200",service="gateway"\} 1/);
      expect(metrics).toMatch(/process_resident_memory_bytes/);
      const picked = await (await fetch(`${base}/metrics?name=appcat_http_requests_total&name=no_such_metric`)).text();
      expect(picked).toMatch(/^# HELP appcat_http_requests_total /);
      expect(picked).toMatch(/appcat_http_requests_total\{route="apps.search",status="200",service="gateway"\} 1\n$/);
      expect(picked).not.toMatch(/process_resident_memory_bytes|no_such_metric/);
      expect((await fetch(`${base}/nope`)).status).toBe(404);
    } finally {
      await ops.close();
    }
  });
});

describe('JSON logger', () => {
  it('writes one JSON object per line and redacts secrets wherever they sit', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...chunk.toString().trim().split('\n'));
        done();
      },
    });
    const logger = new JsonNestLogger(createJsonLogger('payments', 'info', sink));
    logger.log('debit done', 'CreditService');
    logger.log(
      { msg: 'request', headers: { authorization: 'Bearer ak_secret', 'payment-signature': 'sig' }, key: 'ak_secret' },
      'Gateway',
    );
    logger.error(new Error('boom'), 'Gateway');
    const parsed = lines.map((line) => JSON.parse(line));
    expect(parsed[0]).toMatchObject({
      level: 'info',
      service: 'payments',
      context: 'CreditService',
      msg: 'debit done',
    });
    expect(lines.join('\n')).not.toMatch(/ak_secret|"sig"/);
    expect(parsed[1].headers).toEqual({ authorization: '[redacted]', 'payment-signature': '[redacted]' });
    expect(parsed[2]).toMatchObject({ level: 'error', msg: expect.stringContaining('boom') });
  });
});
