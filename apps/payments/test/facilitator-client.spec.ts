/**
 * Our facilitator client (verify and settle over node:http) against @x402/core's HTTPFacilitatorClient
 * (fetch): the same request, and for every answer a facilitator may give, the same result or error.
 */
import { createRegistry, PaymentsMetrics } from '@appcat/ops';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { FacilitatorTimeoutError, type PaymentPayload, type PaymentRequirements } from '@x402/core/types';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FacilitatorClient } from '../src/x402/facilitator-client.js';

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

describe('facilitator client', () => {
  let server: Server;
  let url: string;
  let answer: { status: number; body: string; headers?: Record<string, string> } | 'hang' = { status: 200, body: '{}' };
  let seen: Seen[] = [];
  let connections = 0;
  const clients: FacilitatorClient[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        seen.push({ path: request.url ?? '', headers: request.headers, body });
        if (request.url?.startsWith('/moved/')) {
          response.writeHead(307, { location: `${url}/${request.url.slice('/moved/'.length)}` }).end();
          return;
        }
        if (answer === 'hang') return;
        response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(answer.body);
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  // Ours reports each request's time to the metrics, as payments wires it; the library has no such hook.
  const metrics = new PaymentsMetrics(createRegistry('payments'));
  const ours = (options: { url?: string; timeoutMs?: number; token?: string } = {}) => {
    const client = new FacilitatorClient({
      ...config(options),
      observe: (operation, outcome, seconds) =>
        metrics.facilitatorRequestSeconds.observe({ operation, outcome }, seconds),
    });
    clients.push(client);
    return client;
  };
  const library = (options: { url?: string; timeoutMs?: number; token?: string } = {}) =>
    new HTTPFacilitatorClient(config(options));
  const config = ({
    url: base = url,
    timeoutMs = 5_000,
    token,
  }: {
    url?: string;
    timeoutMs?: number;
    token?: string;
  }) => ({
    url: base,
    timeoutMs,
    createAuthHeaders: token
      ? async () => {
          const headers = { Authorization: `Bearer ${token}` };
          return { verify: headers, settle: headers, supported: headers };
        }
      : undefined,
  });

  const requirements: PaymentRequirements = {
    scheme: 'exact',
    network: 'eip155:8453',
    amount: '3000',
    asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    payTo: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    maxTimeoutSeconds: 300,
    extra: { name: 'USD Coin', version: '2' },
  };
  const payload: PaymentPayload = {
    x402Version: 2,
    resource: { url: 'http://localhost/api/apps/1', description: 'one app', mimeType: 'application/json' },
    accepted: requirements,
    payload: {
      signature: `0x${'ab'.repeat(65)}`,
      authorization: {
        from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        to: requirements.payTo,
        value: '3000',
        validAfter: '0',
        validBefore: '9999999999',
        nonce: `0x${'11'.repeat(32)}`,
      },
    },
  };

  /** What a client made of the answer: its result, or its error's class and message. */
  const outcome = async (call: () => Promise<unknown>) => {
    try {
      return { result: await call() };
    } catch (error) {
      const e = error as Error & Record<string, unknown>;
      return {
        error: e.constructor.name,
        message: e.message,
        invalidReason: e.invalidReason,
        errorReason: e.errorReason,
        statusCode: e.statusCode,
      };
    }
  };

  it.each([
    ['a payload decoded from a header', () => payload],
    // The library writes bigints as decimal text; a payload built in code may hold one.
    ['a payload holding a bigint', () => ({ ...payload, payload: { ...payload.payload, counter: 2n ** 70n } })],
  ])('sends what the library sends: the same path, JSON body and auth header (%s)', async (_, sent) => {
    answer = { status: 200, body: JSON.stringify({ isValid: true, payer: '0xpayer' }) };
    const requests: Seen[][] = [];
    for (const client of [library({ token: 'secret' }), ours({ token: 'secret' })]) {
      seen = [];
      await client.verify(sent() as typeof payload, requirements);
      answer = {
        status: 200,
        body: JSON.stringify({ success: true, transaction: '0xtx', network: 'eip155:8453', payer: '0xpayer' }),
      };
      await client.settle(sent() as typeof payload, requirements);
      answer = { status: 200, body: JSON.stringify({ isValid: true, payer: '0xpayer' }) };
      requests.push(seen);
    }
    const [theirs, mine] = requests;
    expect(mine.map((r) => r.path)).toEqual(['/verify', '/settle']);
    expect(mine.map((r) => r.path)).toEqual(theirs.map((r) => r.path));
    expect(mine.map((r) => JSON.parse(r.body) as unknown)).toEqual(theirs.map((r) => JSON.parse(r.body) as unknown));
    for (const request of mine) {
      expect(request.headers).toMatchObject({
        'content-type': 'application/json',
        authorization: 'Bearer secret',
        'content-length': String(Buffer.byteLength(request.body)),
      });
    }
  });

  const answers: { name: string; status: number; body: string }[] = [
    {
      name: 'valid',
      status: 200,
      body: JSON.stringify({ isValid: true, payer: '0xpayer', invalidReason: null, surplus: 1 }),
    },
    {
      name: 'invalid',
      status: 200,
      body: JSON.stringify({
        isValid: false,
        invalidReason: 'insufficient_funds',
        invalidMessage: 'balance too low',
        payer: '0xpayer',
      }),
    },
    {
      name: 'settled',
      status: 200,
      body: JSON.stringify({
        success: true,
        transaction: '0xtx',
        network: 'eip155:8453',
        payer: '0xpayer',
        amount: '3000',
        errorReason: null,
      }),
    },
    {
      name: 'not settled',
      status: 200,
      body: JSON.stringify({
        success: false,
        errorReason: 'invalid_transaction_state',
        transaction: '',
        network: 'eip155:8453',
      }),
    },
    {
      name: 'refused with reason',
      status: 400,
      body: JSON.stringify({
        isValid: false,
        success: false,
        invalidReason: 'invalid_signature',
        errorReason: 'invalid_signature',
        transaction: '',
        network: 'eip155:8453',
      }),
    },
    { name: 'server error, text', status: 500, body: 'Internal   Server\nError' },
    { name: 'server error, empty', status: 502, body: '' },
    { name: 'server error, other JSON', status: 503, body: JSON.stringify({ error: 'busy' }) },
    { name: 'not JSON', status: 200, body: '<html>hello</html>' },
    { name: 'wrong shape', status: 200, body: JSON.stringify({ isValid: 'yes', success: 'yes' }) },
    { name: 'an array', status: 200, body: '[1, 2]' },
    { name: 'long text', status: 500, body: 'x'.repeat(500) },
  ];

  it.each(answers)('makes of an answer ($name) what the library makes of it', async ({ status, body }) => {
    answer = { status, body };
    for (const operation of ['verify', 'settle'] as const) {
      const theirs = await outcome(() => library()[operation](payload, requirements));
      const mine = await outcome(() => ours()[operation](payload, requirements));
      expect(mine).toEqual(theirs);
    }
  });

  it('follows a redirect (sending the call again through the library, whose fetch follows it)', async () => {
    answer = { status: 200, body: JSON.stringify({ isValid: true, payer: '0xpayer' }) };
    seen = [];
    await expect(ours({ url: `${url}/moved` }).verify(payload, requirements)).resolves.toEqual({
      isValid: true,
      payer: '0xpayer',
    });
    expect(seen.map((r) => r.path)).toEqual(['/moved/verify', '/moved/verify', '/verify']);
  });

  it('gives up after timeoutMs with FacilitatorTimeoutError', async () => {
    answer = 'hang';
    const began = Date.now();
    await expect(ours({ timeoutMs: 300 }).settle(payload, requirements)).rejects.toBeInstanceOf(
      FacilitatorTimeoutError,
    );
    // It waited its own timeout and gave up on a call that never ends (no bound sized for a quiet
    // machine: 2 s was one).
    expect(Date.now() - began).toBeGreaterThanOrEqual(290);
    await expect(ours({ timeoutMs: 300 }).verify(payload, requirements)).rejects.toMatchObject({
      name: 'FacilitatorTimeoutError',
      operation: 'verify',
    });
  });

  it('keeps one connection open across calls', async () => {
    answer = { status: 200, body: JSON.stringify({ isValid: true }) };
    const client = ours();
    const before = connections;
    for (let i = 0; i < 5; i++) await client.verify(payload, requirements);
    expect(connections - before).toBe(1);
  });

  it('tells its observer how each request ended and how long it waited, and an observer that throws changes no answer', async () => {
    const observed: { operation: string; outcome: string; seconds: number }[] = [];
    const client = new FacilitatorClient({
      ...config({ timeoutMs: 300 }),
      observe: (operation, outcome, seconds) => observed.push({ operation, outcome, seconds }),
    });
    clients.push(client);
    answer = { status: 200, body: JSON.stringify({ success: true, transaction: '0xtx', network: 'eip155:8453' }) };
    await client.settle(payload, requirements);
    answer = { status: 400, body: JSON.stringify({ isValid: false, invalidReason: 'invalid_signature' }) };
    await expect(client.verify(payload, requirements)).rejects.toMatchObject({ name: 'VerifyError' });
    answer = { status: 500, body: 'down' };
    await expect(client.settle(payload, requirements)).rejects.toThrow(/failed \(500\)/);
    answer = 'hang';
    const began = performance.now();
    await expect(client.settle(payload, requirements)).rejects.toBeInstanceOf(FacilitatorTimeoutError);
    const hung = (performance.now() - began) / 1000;
    expect(observed.map(({ operation, outcome }) => `${operation} ${outcome}`)).toEqual([
      'settle answered',
      'verify answered',
      'settle failed',
      'settle timeout',
    ]);
    expect(observed[3].seconds).toBeGreaterThanOrEqual(0.29);
    expect(observed[3].seconds).toBeLessThanOrEqual(hung);

    const throwing = new FacilitatorClient({
      ...config({}),
      observe: () => {
        throw new Error('metrics broke');
      },
    });
    clients.push(throwing);
    answer = { status: 200, body: JSON.stringify({ success: true, transaction: '0xtx', network: 'eip155:8453' }) };
    await expect(throwing.settle(payload, requirements)).resolves.toMatchObject({ success: true, transaction: '0xtx' });
  });

  it('reports a facilitator it could not connect to as unreached (nothing was sent), not as a refusal', async () => {
    for (const operation of ['verify', 'settle'] as const) {
      const outcomeOf = await outcome(() => ours({ url: 'http://127.0.0.1:9' })[operation](payload, requirements));
      expect(outcomeOf).toMatchObject({
        error: 'FacilitatorUnreachableError',
        message: expect.stringContaining('ECONNREFUSED'),
      });
    }
  });
});
