/*
 * The MCP endpoint end to end: the official MCP client over Streamable HTTP against the whole system,
 * paying with a prepaid key (debits checked on the balance tool and in Postgres) and with x402 in
 * `_meta` (the official x402 client signing on the local chain; the payment checked on chain).
 */
import { formatUsd } from '@appcat/contracts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { x402Client } from '@x402/core/client';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';
import { System } from './support/system.js';

/** Each priced tool, arguments for it, and the HTTP route call that must give the same data. */
const CALLS: [tool: string, args: Record<string, unknown>, path: string][] = [
  ['apps_search', { term: 'chess', country: 'gb' }, '/api/apps?term=chess&country=gb'],
  ['apps_get', { appId: '284882215' }, '/api/apps/284882215'],
  [
    'apps_reviews',
    { appId: 'com.facebook.Facebook', sort: 'helpful', page: 2 },
    '/api/apps/com.facebook.Facebook/reviews?sort=helpful&page=2',
  ],
  ['apps_similar', { appId: '284882215', lang: 'en-us' }, '/api/apps/284882215/similar?lang=en-us'],
  ['bundles_search', { term: 'pro' }, '/api/bundles?term=pro'],
  ['bundles_get', { bundleId: '1482985563' }, '/api/bundles/1482985563'],
  ['bundles_reviews', { bundleId: '1482985563' }, '/api/bundles/1482985563/reviews'],
  ['bundles_similar', { bundleId: '1482985563', country: 'JP' }, '/api/bundles/1482985563/similar?country=JP'],
  ['developers_get', { developerId: '284882218' }, '/api/developers/284882218'],
  ['apps_ratings', { appId: '284882215', country: 'gb' }, '/api/apps/284882215/ratings?country=gb'],
  ['apps_privacy', { appId: '284882215' }, '/api/apps/284882215/privacy'],
  ['apps_versions', { appId: '284882215' }, '/api/apps/284882215/versions'],
  ['charts_get', { chart: 'top-paid', genre: '6014' }, '/api/charts/top-paid?genre=6014'],
  ['suggestions_search', { term: 'face' }, '/api/suggestions?term=face'],
];

describe('MCP at /mcp', () => {
  let system: System;
  const clients: Client[] = [];

  beforeAll(async () => {
    system = await System.start({ x402: true });
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) await client.close();
    await system?.stop();
  });

  async function connect(headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${system.baseUrl}/mcp`), { requestInit: { headers } }),
    );
    clients.push(client);
    return client;
  }

  const call = async (client: Client, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallToolResult;

  const text = (result: CallToolResult) => (result.content[0] as { type: 'text'; text: string }).text;

  async function balanceOf(client: Client): Promise<string> {
    const result = await call(client, 'credits_balance', {});
    expect(result.isError).toBeFalsy();
    return (result.structuredContent as { balance: string }).balance;
  }

  it('lists one tool per priced route, with schemas from the validation rules and the price, plus the free balance tool', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...CALLS.map(([name]) => name), 'credits_balance'].sort());
    for (const tool of tools.filter((t) => t.name !== 'credits_balance')) {
      expect(tool.description).toContain('USD 0.003 per call');
      expect(tool.inputSchema.type).toBe('object');
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('apps_search')!.inputSchema).toMatchObject({
      required: ['term'],
      properties: {
        term: { type: 'string', minLength: 1, maxLength: 200 },
        page: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
        country: { type: 'string', pattern: '^[A-Za-z]{2}$', default: 'us' },
        lang: { type: 'string', maxLength: 35, pattern: expect.any(String) },
      },
    });
    expect(byName.get('apps_reviews')!.inputSchema).toMatchObject({
      required: ['appId'],
      properties: { appId: { pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,154}$' }, sort: { enum: ['recent', 'helpful'] } },
    });
    expect(byName.get('developers_get')!.inputSchema).toMatchObject({
      required: ['developerId'],
      properties: { developerId: { type: 'string', pattern: '^[1-9]\\d{0,18}$' } },
    });
    expect(byName.get('credits_balance')!.description).toMatch(/^Free/);
  });

  it('each priced tool, paid with a key, answers the HTTP route`s data and debits 3000 µUSD', async () => {
    const mcpKey = await system.createKey('1');
    const httpKey = await system.createKey('1');
    const client = await connect({ authorization: `Bearer ${mcpKey.key}` });
    expect(await balanceOf(client)).toBe('1.000000');

    let remaining = 1_000_000n;
    for (const [tool, args, path] of CALLS) {
      const result = await call(client, tool, args);
      if (result.isError) throw new Error(`${tool} answered an error: ${text(result)}`);
      remaining -= 3000n;
      const http = await system.get(path, httpKey.key);
      expect(http.status).toBe(200);
      expect(result.structuredContent).toEqual(http.body.data);
      expect(JSON.parse(text(result))).toEqual(http.body.data);
      expect(result._meta).toMatchObject({
        'appcat/credits-remaining': formatUsd(remaining),
        'appcat/cache': expect.stringMatching(/^(UPSTREAM|CACHE)$/),
      });
      expect(await balanceOf(client)).toBe(formatUsd(remaining));
    }
    expect(
      ((await call(client, 'apps_get', { appId: '284882215' })).structuredContent as { results: { trackId: number }[] })
        .results[0].trackId,
    ).toBe(284882215);
    const calls = BigInt(CALLS.length + 1);
    await system.waitForSpent(mcpKey.id, 3000n * calls);
    expect(await system.ledger(mcpKey.id)).toEqual({
      toppedUp: 1_000_000n,
      spent: 3000n * calls,
      debits: Number(calls),
    });
  });

  it.each([
    ['apps_search', {}, 'term is required'],
    ['apps_search', { term: 'chess', page: 11 }, 'page must be an integer from 1 to 10'],
    ['apps_search', { term: 'chess', country: 'xx' }, 'country must be an ISO 3166-1 alpha-2 country code such as us'],
    ['apps_reviews', { appId: '1', sort: 'newest' }, 'sort must be one of: recent, helpful'],
    [
      'apps_get',
      { appId: '../../admin' },
      'appId must be a numeric App Store id or a bundle identifier such as com.example.app',
    ],
    ['bundles_get', { bundleId: 'abc' }, 'bundleId must be a numeric App Store bundle id'],
    ['developers_get', { developerId: true }, 'developerId must be a string'],
    // A lone UTF-16 surrogate: JSON can carry it, URLs and the upstream cannot.
    [
      'apps_search',
      { term: 'chess \ud800' },
      'term must be well-formed Unicode text: it holds a lone UTF-16 surrogate',
    ],
    ['apps_get', { appId: '\udc00' }, 'appId must be well-formed Unicode text: it holds a lone UTF-16 surrogate'],
  ])('%s %j is a tool error naming the parameter, and nothing is charged', async (tool, args, message) => {
    const key = await system.createKey('1');
    const client = await connect({ authorization: `Bearer ${key.key}` });
    const result = await call(client, tool, args);
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(message);
    expect(await balanceOf(client)).toBe('1.000000');
    expect(await system.ledger(key.id)).toEqual({ toppedUp: 1_000_000n, spent: 0n, debits: 0 });
  });

  /** A raw MCP POST (the SDK client never sends batches), with `headers`; the status and the JSON answer. */
  async function postMcp(body: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${system.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  }

  const toolCall = (id: unknown, args: Record<string, unknown>, meta?: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'apps_get', arguments: args, ...(meta ? { _meta: meta } : {}) },
  });

  const REPEATED_ID = {
    jsonrpc: '2.0',
    error: { code: -32600, message: 'Invalid Request: the batch repeats the request id 7' },
    id: null,
  };

  it('a batch repeating a request id is refused whole before any debit (MCP: an id is never reused)', async () => {
    const key = await system.createKey('1');
    const auth = { authorization: `Bearer ${key.key}` };
    const batch = [toolCall(7, { appId: '284882215' }), toolCall(7, { appId: '284882215' })];
    expect(await postMcp(batch, auth)).toEqual({ status: 400, body: REPEATED_ID });
    // The same id as a number and as a string are two ids (JSON-RPC compares them as given).
    const distinct = await postMcp([toolCall(8, { appId: '284882215' }), toolCall('8', { appId: '284882215' })], auth);
    expect(distinct.status).toBe(200);
    expect((distinct.body as { id: unknown }[]).map((answer) => answer.id).sort()).toEqual([8, '8']);
    await system.waitForSpent(key.id, 6000n);
    expect(await system.ledger(key.id)).toEqual({ toppedUp: 1_000_000n, spent: 6000n, debits: 2 });
  });

  describe('x402 in _meta, without a key', () => {
    let payer: x402Client;
    let payTo: `0x${string}`;

    beforeAll(() => {
      payer = new x402Client().register(
        'eip155:*',
        new ExactEvmScheme(privateKeyToAccount(system.chain!.accounts.payer.privateKey)),
      );
      payTo = system.chain!.accounts.payTo.address;
    });

    it('an unpaid call answers the PaymentRequired; paid in _meta it answers the data and the receipt; the payload cannot be replayed', async () => {
      const client = await connect();
      const unpaid = await call(client, 'apps_get', { appId: '284882215' });
      expect(unpaid.isError).toBe(true);
      const required = unpaid.structuredContent as unknown as PaymentRequired;
      expect(JSON.parse(text(unpaid))).toEqual(required);
      const http = await fetch(`${system.baseUrl}/api/apps/284882215`);
      expect(http.status).toBe(402);
      expect(required).toEqual({
        x402Version: 2,
        resource: {
          url: 'mcp://tool/apps_get',
          description: 'Get one App Store app by id or bundle identifier',
          mimeType: 'application/json',
        },
        accepts: decodePaymentRequiredHeader(http.headers.get('payment-required')!).accepts,
        // x402's payment-identifier, offered on every challenge, not required.
        extensions: { 'payment-identifier': expect.objectContaining({ info: { required: false } }) },
      });
      expect(required.accepts[0]).toMatchObject({ network: 'eip155:8453', amount: '3000', payTo });

      const payment = await payer.createPaymentPayload(required);
      const before = await system.chain!.balanceOf(payTo);
      const paid = await call(client, 'apps_get', { appId: '284882215' }, { 'x402/payment': payment });
      expect(paid.isError).toBeFalsy();
      expect((paid.structuredContent as { results: { trackId: number }[] }).results[0].trackId).toBe(284882215);
      const receipt = paid._meta!['x402/payment-response'] as SettleResponse;
      expect(receipt).toMatchObject({
        success: true,
        network: 'eip155:8453',
        payer: system.chain!.accounts.payer.address,
      });
      expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      expect((await system.chain!.balanceOf(payTo)) - before).toBe(3000n);

      const replayed = await call(client, 'apps_get', { appId: '284882215' }, { 'x402/payment': payment });
      expect(replayed.isError).toBe(true);
      expect(replayed.structuredContent).toMatchObject({
        x402Version: 2,
        error: 'payment already used',
        accepts: required.accepts,
      });
      expect(replayed._meta?.['x402/payment-response']).toBeUndefined();
      expect((await system.chain!.balanceOf(payTo)) - before).toBe(3000n);
    });

    it('a batch repeating a request id settles nothing', async () => {
      const client = await connect();
      const required = (await call(client, 'apps_get', { appId: '284882215' }))
        .structuredContent as unknown as PaymentRequired;
      const [first, second] = [await payer.createPaymentPayload(required), await payer.createPaymentPayload(required)];
      const before = await system.chain!.balanceOf(payTo);
      const batch = [
        toolCall(7, { appId: '284882215' }, { 'x402/payment': first }),
        toolCall(7, { appId: '284882215' }, { 'x402/payment': second }),
      ];
      expect(await postMcp(batch)).toEqual({ status: 400, body: REPEATED_ID });
      expect(await system.chain!.balanceOf(payTo)).toBe(before);
    });

    it('a payment made for another tool is refused with the reason and a fresh PaymentRequired; no money moves', async () => {
      const client = await connect();
      const required = (await call(client, 'apps_similar', { appId: '284882215' }))
        .structuredContent as unknown as PaymentRequired;
      const payment = await payer.createPaymentPayload(required);
      const before = await system.chain!.balanceOf(payTo);
      const refused = await call(client, 'apps_get', { appId: '284882215' }, { 'x402/payment': payment });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({
        error: 'payment was made for another resource',
        resource: { url: 'mcp://tool/apps_get' },
      });
      expect(await system.chain!.balanceOf(payTo)).toBe(before);
    });
  });
});
