import { request } from 'node:http';
import { jest } from '@jest/globals';
import { ChaosCluster } from '../src/cluster.js';
import { fuzzGateway } from '../src/fuzz.js';

jest.setTimeout(120_000);

describe('HTTP fuzzer (CI size)', () => {
  let cluster: ChaosCluster;
  beforeAll(async () => {
    cluster = await ChaosCluster.start({ replicas: 1 });
  });
  afterAll(() => cluster.stop());

  it('answers every fuzzed route, method and header with an envelope and no 5xx, charges nothing, steers no upstream request', async () => {
    const report = await fuzzGateway(cluster, 300);
    process.stdout.write(`fuzz: ${report.requests} requests, statuses ${JSON.stringify(report.statuses)}, ${report.upstreamRequests} upstream requests\n`);
    expect(report.requests).toBe(300);
    // Known finding, reported to the lead: a path segment longer than the router's maxParamLength (512) is a 500.
    const overLongId500 = (v: string) => /"id":"[^"]{513,}"/.test(v) && /: 500( |$)/.test(v);
    expect(report.violations.filter((v) => !overLongId500(v))).toEqual([]);
  });

  // Flips to a plain failure once the gateway answers 400/404 for an over-long id; then drop `.failing`.
  it.failing('answers an over-long id with a 4xx envelope, not a 500', async () => {
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
