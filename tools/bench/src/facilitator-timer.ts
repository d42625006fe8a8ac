import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A pass-through HTTP proxy in front of the facilitator that times every /verify and /settle, from
 * the request reaching the proxy to the facilitator's last byte. Both x402 servers under test talk to
 * the facilitator through it, so "server time" is a call's time minus what the facilitator took.
 */
export class FacilitatorTimer {
  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly tally: { ms: number; calls: number },
  ) {}

  static async start(target: string): Promise<FacilitatorTimer> {
    const upstream = new URL(target);
    const tally = { ms: 0, calls: 0 };
    const server = createServer((incoming, outgoing) => {
      const began = performance.now();
      const timed = /^\/(verify|settle)\b/.test(incoming.url ?? '');
      const forwarded = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
          answer.once('end', () => {
            if (timed) {
              tally.ms += performance.now() - began;
              tally.calls += 1;
            }
          });
        },
      );
      forwarded.once('error', () => outgoing.writeHead(502).end());
      incoming.pipe(forwarded);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new FacilitatorTimer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, tally);
  }

  /** Facilitator time and calls since the last take(). */
  take(): { ms: number; calls: number } {
    const taken = { ...this.tally };
    this.tally.ms = 0;
    this.tally.calls = 0;
    return taken;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
