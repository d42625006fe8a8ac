/*
 * The MCP endpoint's own behaviour, with payments and catalog as stand-ins on a private nats-server
 * (as in gateway-http.spec.ts): what each tool call asks of payments and catalog, how failures come
 * back as tool errors, and the HTTP answers outside JSON-RPC. The real services: tools/e2e mcp suite.
 */
import { GatewayMetrics } from '@appcat/ops';
import { declarePaymentIdentifierExtension } from '@x402/extensions/payment-identifier';
import { ErrorCode, Subject } from '@appcat/contracts';
import { PRICED_ROUTES } from '@appcat/routes';
import { startNatsServer, type ManagedProcess } from '@appcat/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  heldOrDebited,
  serveCredits,
  serveStandIn,
  serveX402Holds,
  STAND_IN_X402_HOLD,
  StandIn,
  startGatewayOnStandIns,
} from './support/stand-ins.js';

const KEY = 'ak_' + 'x'.repeat(43);
const SETTLED = { success: true, transaction: '0xT', network: 'eip155:8453', payer: '0xP' };
const base64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
const PAYMENT = {
  x402Version: 2,
  accepted: { scheme: 'exact', network: 'eip155:8453' },
  payload: { signature: '0xS' },
};

describe('gateway MCP endpoint', () => {
  let nats: ManagedProcess;
  let responder: NatsConnection;
  let app: NestFastifyApplication;
  let base: string;
  const clients: Client[] = [];
  /** Reservations (and one-step debits). */
  const debit = new StandIn(heldOrDebited);
  let capture: StandIn;
  let release: StandIn;
  const balance = new StandIn(() => ({ balance: '4997000' }));
  const catalog = new StandIn((data) => ({ dataJson: JSON.stringify({ echo: data.query }) }));
  const accepts = new StandIn((data) => ({
    accepts: [
      {
        scheme: 'exact',
        network: 'eip155:8453',
        amount: (data.offer as { price: string }).price,
        asset: '0xA',
        payTo: '0xB',
      },
    ],
  }));
  /** x402 payments checked and held (payments.x402.authorize); settling answers the receipt. */
  const pay = new StandIn(() => STAND_IN_X402_HOLD);
  let settle: StandIn;
  const standIns = [debit, balance, catalog, accepts, pay];

  const serve = (subject: string, standIn: StandIn) => serveStandIn(responder, subject, standIn);

  beforeAll(async () => {
    nats = await startNatsServer();
    responder = await connect({ servers: nats.url });
    ({ capture, release } = serveCredits(responder, debit));
    serve(Subject.CreditsBalance, balance);
    serve(Subject.CatalogFetch, catalog);
    serve(Subject.X402Accepts, accepts);
    ({ settle } = serveX402Holds(responder, pay, {
      paymentResponse: base64(SETTLED),
      network: 'eip155:8453',
      payer: '0xP',
      transaction: '0xT',
    }));
    ({ app, base } = await startGatewayOnStandIns(nats.url));
  });

  afterAll(async () => {
    for (const client of clients) await client.close();
    await app.close();
    await responder.close();
    await nats.stop();
  });

  beforeEach(() => [...standIns, capture, release, settle].forEach((s) => s.reset()));

  async function mcp(headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
    clients.push(client);
    return client;
  }
  const withKey = () => mcp({ authorization: `Bearer ${KEY}` });
  const call = async (
    client: Client,
    name: string,
    args: Record<string, unknown> = {},
    meta?: Record<string, unknown>,
  ) => (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallToolResult;
  const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

  describe('paid with the key on the MCP request', () => {
    it('holds the route price, fetches the same catalog query as HTTP, captures, and answers the data with the balance left', async () => {
      const result = await call(await withKey(), 'apps_search', { term: ' chess ', country: 'GB', page: 2 });
      const data = { echo: { route: 'apps.search', term: 'chess', page: 2, country: 'gb' } };
      expect(result).toEqual({
        content: [{ type: 'text', text: JSON.stringify(data) }],
        structuredContent: data,
        _meta: { 'appcat/credits-remaining': '4.997000', 'appcat/cache': 'UPSTREAM' },
      });
      expect(debit.calls).toEqual([
        expect.objectContaining({
          amount: '3000',
          route: 'apps.search',
          keyHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        }),
      ]);
      expect(JSON.stringify(debit.calls)).not.toContain(KEY);
      expect(capture.calls).toHaveLength(1);
      const http = await fetch(`${base}/api/apps?term=%20chess%20&country=GB&page=2`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(catalog.calls[1]).toEqual({ ...catalog.calls[0], requestId: expect.any(String) });
      expect(((await http.json()) as { data: unknown }).data).toEqual(data);
    });

    it('takes numbers for ids and pages, and says how old a stale copy is', async () => {
      catalog.handler = (data) => ({
        dataJson: JSON.stringify({ echo: data.query }),
        source: 'stale',
        ageSeconds: 61.9,
      });
      const result = await call(await withKey(), 'apps_reviews', { appId: 284882215, page: 3 });
      expect(result.structuredContent).toEqual({
        echo: { route: 'apps.reviews', appId: '284882215', page: 3, country: 'us', sort: 'recent' },
      });
      expect(result._meta).toMatchObject({ 'appcat/cache': 'STALE', 'appcat/age': 61 });
    });

    it.each([
      [ErrorCode.CreditInsufficient, 'topup_required'],
      [ErrorCode.CreditKeyRevoked, 'api key revoked'],
      [ErrorCode.CreditStoreUnavailable, 'credit store unavailable; nothing was charged'],
    ])('a reservation refused with %s is a tool error "%s", and the catalog is not asked', async (code, message) => {
      debit.handler = () => {
        throw { code, message: 'credit store unavailable' };
      };
      const result = await call(await withKey(), 'apps_get', { appId: '1' });
      expect(result).toEqual({ isError: true, content: [{ type: 'text', text: message }] });
      expect(catalog.calls).toHaveLength(0);
    });

    it('an upstream failure is a tool error naming the cause; the hold is released and nothing is charged', async () => {
      catalog.handler = () => {
        throw { code: ErrorCode.UpstreamTimeout, message: 'upstream store timed out after 5000 ms' };
      };
      const result = await call(await withKey(), 'apps_get', { appId: '1' });
      expect(result).toEqual({
        isError: true,
        content: [{ type: 'text', text: 'upstream store timed out after 5000 ms; nothing was charged' }],
      });
      expect(debit.calls).toHaveLength(1);
      expect(capture.calls).toHaveLength(0);
      expect(await release.asked(1)).toHaveLength(1);
    });

    it('the balance tool is free and needs a key', async () => {
      expect(await call(await withKey(), 'credits_balance')).toEqual({
        content: [{ type: 'text', text: '{"balance":"4.997000","currency":"USD"}' }],
        structuredContent: { balance: '4.997000', currency: 'USD' },
      });
      expect(await call(await mcp(), 'credits_balance')).toEqual({
        isError: true,
        content: [{ type: 'text', text: 'an api key is required: Authorization: Bearer <api key>' }],
      });
      expect(debit.calls).toHaveLength(0);
    });
  });

  describe('nothing is charged', () => {
    afterEach(() => {
      expect(debit.calls).toHaveLength(0);
      expect(catalog.calls).toHaveLength(0);
    });

    it('a malformed key is a tool error, while listing tools needs no key', async () => {
      const client = await mcp({ authorization: 'Bearer nope' });
      expect((await client.listTools()).tools).toHaveLength(PRICED_ROUTES.length + 1);
      expect(text(await call(client, 'apps_get', { appId: '1' }))).toBe('invalid api key');
      expect(text(await call(await mcp({ authorization: 'Basic abc' }), 'apps_get', { appId: '1' }))).toBe(
        'authorization must be "Bearer <api key>"',
      );
    });

    it('an invalid argument wins over a missing payment, and payments is not asked', async () => {
      const result = await call(await mcp(), 'apps_search', { term: 'x', lang: 'not a tag' });
      expect(result).toEqual({
        isError: true,
        content: [{ type: 'text', text: 'lang must be a language tag such as en-us' }],
      });
      expect(accepts.calls).toHaveLength(0);
    });

    it('a key and an x402 payment together are refused', async () => {
      const result = await call(await withKey(), 'apps_get', { appId: '1' }, { 'x402/payment': PAYMENT });
      expect(text(result)).toBe('authorization and _meta["x402/payment"] cannot be combined: pay with one');
      expect(pay.calls).toHaveLength(0);
    });

    it('an unknown tool is a JSON-RPC error', async () => {
      await expect((await withKey()).callTool({ name: 'apps_delete', arguments: {} })).rejects.toThrow(
        /unknown tool: apps_delete/,
      );
    });

    // MCP 2025-11-25 (tools, "Error Handling"): a request that fails the CallToolRequest schema is a
    // protocol error; a bad argument value is a tool execution error the model can correct (SEP-1303).
    it.each([
      [{ name: 'apps_get', arguments: ['1'] }, 'params.arguments must be an object, not an array'],
      [{ name: 'apps_get', arguments: 'appId=1' }, 'params.arguments must be an object, not a string'],
      [{ name: 42, arguments: { appId: '1' } }, 'params.name must be a string, not a number'],
    ])('tools/call %j that fails the MCP schema → JSON-RPC -32602 "%s"', async (params, message) => {
      const error = await (await withKey()).callTool(params as never).then(
        () => undefined,
        (refused: unknown) => refused,
      );
      expect(error).toMatchObject({ code: -32602, message: `MCP error -32602: ${message}` });
    });

    it('tools/list with a malformed cursor → JSON-RPC -32602 naming it, not an internal error', async () => {
      await expect((await mcp()).listTools({ cursor: 5 as never })).rejects.toMatchObject({
        code: -32602,
        message: 'MCP error -32602: params.cursor must be a string, not a number',
      });
    });

    it('a parameter value out of its rule is a tool error naming it (the model can correct it)', async () => {
      const result = await call(await withKey(), 'apps_search', { term: 'chess', page: 99 });
      expect(result).toEqual({
        isError: true,
        content: [{ type: 'text', text: 'page must be an integer from 1 to 10' }],
      });
      expect(text(await call(await withKey(), 'developers_get', { developerId: true }))).toBe(
        'developerId must be a string',
      );
    });
  });

  describe('x402 in _meta', () => {
    it('without payment: the x402 PaymentRequired for the tool, as structured content and as the first text block', async () => {
      const result = await call(await mcp(), 'developers_get', { developerId: '284882218' });
      const required = {
        x402Version: 2,
        resource: {
          url: 'mcp://tool/developers_get',
          description: 'An App Store developer and their apps',
          mimeType: 'application/json',
        },
        accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '3000', asset: '0xA', payTo: '0xB' }],
        extensions: { 'payment-identifier': declarePaymentIdentifierExtension(false) },
      };
      expect(result).toEqual({
        isError: true,
        structuredContent: required,
        content: [{ type: 'text', text: JSON.stringify(required) }],
      });
      expect(accepts.calls).toEqual([expect.objectContaining({ offer: { price: '3000', networks: 'extended' } })]);
    });

    it('a payment is held and settled through payments as the HTTP header would carry it, then the data and the receipt', async () => {
      const result = await call(await mcp(), 'apps_get', { appId: '1', country: 'jp' }, { 'x402/payment': PAYMENT });
      expect(pay.calls).toEqual([
        expect.objectContaining({
          paymentSignature: base64(PAYMENT),
          offer: { price: '3000', networks: 'standard' },
          resource: expect.objectContaining({ url: 'mcp://tool/apps_get' }),
          route: 'apps.get',
        }),
      ]);
      expect(result.structuredContent).toEqual({ echo: { route: 'apps.get', appId: '1', country: 'jp' } });
      expect(result._meta).toEqual({ 'x402/payment-response': SETTLED, 'appcat/cache': 'UPSTREAM' });
      expect(settle.calls).toHaveLength(1);
      expect(debit.calls).toHaveLength(0);
    });

    it('a refused payment is the reason in a fresh PaymentRequired, and nothing is fetched', async () => {
      pay.handler = () => {
        throw { code: ErrorCode.PaymentReplayed, message: 'payment already used' };
      };
      const result = await call(await mcp(), 'apps_get', { appId: '1' }, { 'x402/payment': PAYMENT });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({
        x402Version: 2,
        error: 'payment already used',
        accepts: [{ amount: '3000' }],
      });
      expect(JSON.parse(text(result))).toEqual(result.structuredContent);
      expect(catalog.calls).toHaveLength(0);
    });

    it('an unreachable facilitator is a tool error naming it', async () => {
      pay.handler = () => {
        throw { code: ErrorCode.FacilitatorUnavailable, message: 'payment facilitator unreachable' };
      };
      const result = await call(await mcp(), 'apps_get', { appId: '1' }, { 'x402/payment': PAYMENT });
      expect(result).toEqual({
        isError: true,
        content: [{ type: 'text', text: 'payment facilitator unreachable; nothing was charged' }],
      });
    });
  });

  describe('HTTP outside JSON-RPC', () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body,
      });

    it.each(['GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'])(
      '%s /mcp → 405 JSON-RPC error with Allow: POST (stateless: no stream, no session)',
      async (method) => {
        const res = await fetch(`${base}/mcp`, { method, headers: { 'x-request-id': 'trace-405' } });
        expect(res.status).toBe(405);
        expect(res.headers.get('allow')).toBe('POST');
        expect(res.headers.get('x-request-id')).toBe('trace-405');
        expect(await res.json()).toEqual({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Method not allowed.' },
          id: null,
        });
      },
    );

    it('a body that is not JSON → 400 JSON-RPC parse error', async () => {
      const res = await post('{"jsonrpc":');
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32700, message: 'Parse error: the body is not JSON' },
        id: null,
      });
    });

    it('an empty batch → 400 JSON-RPC Invalid Request with id null (JSON-RPC 2.0 §6), not an empty 202', async () => {
      const res = await post('[]', { 'x-request-id': 'trace-empty' });
      expect(res.status).toBe(400);
      expect(res.headers.get('x-request-id')).toBe('trace-empty');
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32600, message: 'Invalid Request: an empty batch' },
        id: null,
      });
    });

    it('a batch answers each request, a malformed one with -32602 beside the others', async () => {
      const res = await post(
        JSON.stringify([
          { jsonrpc: '2.0', id: 1, method: 'tools/list' },
          { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'apps_get', arguments: [] } },
        ]),
      );
      expect(res.status).toBe(200);
      const answers = (await res.json()) as { id: number; result?: unknown; error?: unknown }[];
      expect(answers.find((answer) => answer.id === 1)?.result).toBeDefined();
      expect(answers.find((answer) => answer.id === 2)).toEqual({
        jsonrpc: '2.0',
        id: 2,
        error: { code: -32602, message: 'params.arguments must be an object, not an array' },
      });
    });

    it('an oversized body → 413 JSON-RPC error', async () => {
      const res = await post(
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(20_000) } }),
      );
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
    });

    it('answers a plain JSON-RPC request with JSON, no session, the request id, and counts it', async () => {
      const res = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }), {
        'x-request-id': 'trace-mcp-1',
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('mcp-session-id')).toBeNull();
      expect(res.headers.get('x-request-id')).toBe('trace-mcp-1');
      const body = (await res.json()) as { id: number; result: { tools: { name: string }[] } };
      expect(body.id).toBe(7);
      expect(body.result.tools.map((t) => t.name)).toContain('credits_balance');
      const metrics = await app.get(GatewayMetrics).registry.metrics();
      expect(metrics).toMatch(/appcat_http_requests_total\{route="\/mcp",status="200",service="gateway"\} [1-9]/);
    });
  });

  it('HTTP says the same: a catalog failure is a 502 saying nothing was charged, with no balance header', async () => {
    catalog.handler = () => {
      throw { code: ErrorCode.UpstreamTimeout, message: 'upstream store timed out after 5000 ms' };
    };
    const res = await fetch(`${base}/api/apps/1`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(502);
    expect(((await res.json()) as { message: string }).message).toMatch(/; nothing was charged$/);
    expect(res.headers.get('x-credits-remaining')).toBeNull();
  });
});
