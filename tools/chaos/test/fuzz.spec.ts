import { request } from 'node:http';
import { jest } from '@jest/globals';
import { ChaosCluster } from '../src/cluster.js';
import { fuzzGateway, fuzzUpstreamSteering } from '../src/fuzz.js';

jest.setTimeout(120_000);

describe('HTTP fuzzer (CI size)', () => {
  let cluster: ChaosCluster;
  beforeAll(async () => {
    cluster = await ChaosCluster.start({ replicas: 1 });
  });
  afterAll(() => cluster.stop());

  it('answers every fuzzed route, method and header with an envelope and no 5xx, charges nothing, steers no upstream request', async () => {
    const report = await fuzzGateway(cluster, 300);
    process.stdout.write(
      `fuzz: ${report.requests} requests, statuses ${JSON.stringify(report.statuses)}, ${report.upstreamRequests} upstream requests\n`,
    );
    expect(report.requests).toBe(300);
    expect(report.violations).toEqual([]);
  });

  it('sends paid, valid requests with hostile ids and terms upstream only as data: same host, expected paths, the exact term', async () => {
    const report = await fuzzUpstreamSteering(cluster, 150);
    process.stdout.write(
      `steering: ${report.requests} requests, statuses ${JSON.stringify(report.statuses)}, ${report.upstreamRequests} upstream requests\n`,
    );
    expect(report.upstreamRequests).toBeGreaterThan(50);
    expect(report.violations).toEqual([]);
  });

  // Found by the fuzzer: a path segment past the router's maxParamLength (512) used to be a 500.
  it('answers an over-long id with a 4xx envelope, not a 500', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(cluster.gatewayUrls[0]);
      const req = request({ host: url.hostname, port: url.port, path: `/api/apps/${'a'.repeat(1500)}` }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBeLessThan(500);
  });
});
