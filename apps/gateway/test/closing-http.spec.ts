/*
 * A gateway that is closing still answers, with the envelope, the requests that reach it on a
 * connection it has not closed yet: Fastify's load-shedding answer while closing (a bare JSON 503,
 * `return503OnClosing`) stays off, as does Nest's.
 */
import { Subject } from '@appcat/contracts';
import { startNatsServer, type ManagedProcess } from '@appcat/testing';
import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { openSocket, parseResponses, readUntilClosed } from './support/raw-http.js';
import { startGatewayOnStandIns } from './support/stand-ins.js';

const KEY = 'ak_' + 'x'.repeat(43);

describe('gateway closing', () => {
  let nats: ManagedProcess;
  let responder: NatsConnection;
  /** The balance request payments holds: answered when the test says so, keeping its connection busy until then. */
  let held: Promise<Msg>;

  beforeAll(async () => {
    nats = await startNatsServer();
    responder = await connect({ servers: nats.url });
    let hold!: (msg: Msg) => void;
    held = new Promise((resolve) => (hold = resolve));
    responder.subscribe(Subject.CreditsBalance, { callback: (_err, msg) => hold(msg) });
  });

  afterAll(async () => {
    await responder.close();
    await nats.stop();
  });

  it('answers a request that arrives on an open connection while it closes, with the envelope', async () => {
    const { app } = await startGatewayOnStandIns(nats.url, undefined, {
      nats: { servers: [nats.url], requestTimeoutMs: 60_000, shutdownGraceMs: 0 },
    });
    const server = app.getHttpServer();
    const socket = await openSocket((server.address() as { port: number }).port);
    const read = readUntilClosed(socket);
    // In flight while the gateway starts closing, so the connection is not idle and stays open.
    socket.write(`GET /api/credits/balance HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`);
    const balanceRequest = await held;
    const closing = app.close();
    while (server.listening) await new Promise((resolve) => setTimeout(resolve, 5));
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const { id } = balanceRequest.json<{ id: string }>();
    balanceRequest.respond(JSON.stringify({ id, response: { balance: '4997000' }, isDisposed: true }));
    const [balance, health] = parseResponses(await read);
    await closing;
    expect([balance.status, JSON.parse(balance.body).data]).toEqual([200, { balance: '4.997000', currency: 'USD' }]);
    expect(health.status).toBe(200);
    expect(health.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(health.body)).toEqual({ status: 200, message: 'ok', data: { status: 'alive' } });
    // Fastify closes the connection after it, having answered.
    expect(health.headers.connection).toBe('close');
  });
});
