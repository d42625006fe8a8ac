import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

/** A dependency a replica needs before it should get traffic; `check` rejects when it is not there. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<unknown>;
}

const CHECK_TIMEOUT_MS = 1_000;

/**
 * Runs every check with a timeout. Ready means every dependency answered; `draining` (set at
 * SIGTERM) makes a replica unready at once so the load balancer stops sending before it stops.
 */
export class Readiness {
  private draining = false;

  constructor(private readonly checks: ReadinessCheck[]) {}

  drain(): void {
    this.draining = true;
  }

  async evaluate(): Promise<{ ready: boolean; checks: Record<string, string> }> {
    const results: Record<string, string> = {};
    await Promise.all(
      this.checks.map(async ({ name, check }) => {
        try {
          await Promise.race([
            check(),
            new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS).unref()),
          ]);
          results[name] = 'ok';
        } catch (error) {
          results[name] = `failing: ${error instanceof Error ? error.message : String(error)}`.slice(0, 200);
        }
      }),
    );
    if (this.draining) results.shutdown = 'draining';
    return { ready: !this.draining && Object.values(results).every((r) => r === 'ok'), checks: results };
  }
}

/** The envelope, here too, so every HTTP answer of the system has one shape. */
function envelope(status: number, message: string, data: unknown = null): string {
  return JSON.stringify({ status, message, data });
}

/**
 * Every metric, or only the named ones (`/metrics?name=a&name=b`; names the registry does not hold are
 * left out). A script polling one metric then costs the service that metric's text, not the render of
 * every metric with its default-metric collectors.
 */
async function metricsText(registry: Registry, names: string[]): Promise<string> {
  if (names.length === 0) return registry.metrics();
  const known = names.filter((name) => registry.getSingleMetric(name) !== undefined);
  const texts = await Promise.all(known.map((name) => registry.getSingleMetricAsString(name)));
  return texts.map((text) => `${text}\n`).join('');
}

/**
 * The internal ops port: /healthz (liveness: the process answers), /readyz (readiness: its
 * dependencies answer) and /metrics (Prometheus text; `?name=` picks metrics). Never exposed outside
 * the cluster.
 */
export async function startOpsServer(options: {
  host: string;
  port: number;
  readiness: Readiness;
  registry: Registry;
}): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const [path, search = ''] = (request.url ?? '/').split('?', 2);
    const send = (status: number, contentType: string, body: string) => {
      response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
      response.end(body);
    };
    const json = 'application/json; charset=utf-8';
    if (request.method !== 'GET') return send(405, json, envelope(405, 'method not allowed'));
    if (path === '/healthz') return send(200, json, envelope(200, 'ok', { status: 'alive' }));
    if (path === '/readyz') {
      void options.readiness
        .evaluate()
        .then(({ ready, checks }) =>
          send(ready ? 200 : 503, json, envelope(ready ? 200 : 503, ready ? 'ok' : 'not ready', { checks })),
        );
      return;
    }
    if (path === '/metrics') {
      void metricsText(options.registry, new URLSearchParams(search).getAll('name')).then((text) =>
        send(200, options.registry.contentType, text),
      );
      return;
    }
    send(404, json, envelope(404, 'not found'));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  return {
    server,
    port: typeof address === 'object' && address ? address.port : options.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
