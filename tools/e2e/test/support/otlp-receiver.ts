import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DecodedSpan, decodeOtlpTraceRequest } from '@appcat/testing';

/** One span as the services exported it, with its service's name. */
export type ReceivedSpan = DecodedSpan;

/**
 * A collector's OTLP/HTTP endpoint in the test process, for the services' default protocol
 * (`http/protobuf`): keeps every span the services export.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];

  private readonly server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url !== '/v1/traces' || request.headers['content-type'] !== 'application/x-protobuf')
        return response.writeHead(415).end();
      this.spans.push(...decodeOtlpTraceRequest(Buffer.concat(chunks)));
      // An empty ExportTraceServiceResponse: everything accepted.
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  url = '';

  static async start(): Promise<OtlpReceiver> {
    const receiver = new OtlpReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
    return receiver;
  }

  /** The spans of one trace, once `done` says they are all there (or after `timeoutMs`). */
  async trace(traceId: string, done: (spans: ReceivedSpan[]) => boolean, timeoutMs = 30_000): Promise<ReceivedSpan[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const spans = this.spans.filter((span) => span.traceId === traceId);
      if (done(spans) || Date.now() > deadline) return spans;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
