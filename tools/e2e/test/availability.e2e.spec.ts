/*
 * Never charged for what we cannot deliver: the call that finds the store failing is an uncharged 502;
 * once its breaker is open, a call the cache cannot answer is a 502 saying nothing was charged, with
 * Retry-After, and no debit or settlement happens (credits, x402 and MCP alike); a call with a stale
 * copy is served STALE and charged.
 * Every part real: the emulator failing, the catalog's breaker in Redis, payments, anvil and the dev facilitator.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { x402Client } from '@x402/core/client';
import type { PaymentRequired } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';
import { System } from './support/system.js';

describe('pre-charge availability', () => {
  let system: System;
  let client: x402Client;

  beforeAll(async () => {
    system = await System.start({
      x402: true,
      // One failure opens the breaker for a minute; an app's lookup is fresh for 1 s, then kept stale.
      env: { BREAKER_FAILURE_THRESHOLD: '1', BREAKER_OPEN_MS: '60000', CACHE_TTL_DETAILS_S: '1' },
    });
    client = new x402Client();
    registerExactEvmScheme(client, { signer: privateKeyToAccount(system.chain!.accounts.payer.privateKey) });
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
  });

  let cachedAt = 0;

  it('while the store works, a call is served from the upstream and cached', async () => {
    const { key } = await system.createKey('0.3');
    expect((await system.get('/api/apps/284882215', key)).headers['x-cache']).toBe('UPSTREAM');
    cachedAt = Date.now();
  });

  it('the store failing: the call that finds out is not charged either; then the breaker is open', async () => {
    system.emulator.addFault({ status: 503 });
    const { key } = await system.createKey('0.3');
    // Named: a failure is not remembered, so its retry is a fresh try, refused uncharged by the open breaker.
    const named = { 'idempotency-key': 'availability-first-failure' };
    const first = await system.get('/api/apps/389801252', key, named);
    expect(first.status).toBe(502);
    expect(first.body.message).toMatch(/upstream store .*; nothing was charged$/);
    expect(first.headers['x-credits-remaining']).toBeUndefined();
    const retried = await system.get('/api/apps/389801252', key, named);
    expect(retried.status).toBe(502);
    expect(retried.body.message).toMatch(/; retry after \d+ s; nothing was charged$/);
    expect(retried.headers['x-credits-remaining']).toBeUndefined();
    expect(await system.balanceSoon(key, '0.300000')).toBe('0.300000');
  });

  it('credits: a call nothing cached can answer is a 502 saying nothing was charged, with Retry-After, and the balance is unchanged', async () => {
    const created = await system.createKey('0.3');
    for (const id of ['310633997', '333903271', '544007664', '835599320', '1094591345']) {
      const answer = await system.get(`/api/apps/${id}`, created.key);
      expect(answer.status).toBe(502);
      expect(answer.body).toMatchObject({ status: 502, data: null });
      expect(answer.body.message).toMatch(
        /^upstream store is failing \(HTTP 503, itunes\); retry after \d+ s; nothing was charged$/,
      );
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(answer.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(answer.headers['x-credits-remaining']).toBeUndefined();
    }
    expect(await system.balanceSoon(created.key, '0.300000')).toBe('0.300000');
    // Nothing reached the ledger either (the write-behind runs every 100 ms here).
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await system.ledger(created.id)).toEqual({ toppedUp: 300_000n, spent: 0n, debits: 0 });
  });

  it('x402: the same 502 before any settlement; the payer keeps its money and the payload stays unused', async () => {
    const payTo = system.chain!.accounts.payTo.address;
    const before = await system.chain!.balanceOf(payTo);
    const asked = system.facilitator!.stats().settleCalls;
    const unpaid = await fetch(`${system.baseUrl}/api/apps/310633997`);
    const payload = await client.createPaymentPayload(
      decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!),
    );
    const res = await fetch(`${system.baseUrl}/api/apps/310633997`, {
      headers: { 'payment-signature': encodePaymentSignatureHeader(payload) },
    });
    expect(res.status).toBe(502);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(res.headers.get('payment-response')).toBeNull();
    expect(((await res.json()) as { message: string }).message).toMatch(/nothing was charged$/);
    expect(system.facilitator!.stats().settleCalls).toBe(asked);
    expect(await system.chain!.balanceOf(payTo)).toBe(before);
  });

  it('MCP: the tool call is an error saying nothing was charged, and the balance is unchanged', async () => {
    const { key } = await system.createKey('0.3');
    const mcp = new Client({ name: 'e2e-agent', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${system.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    try {
      const result = (await mcp.callTool({ name: 'apps_get', arguments: { appId: '333903271' } })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect((result.content[0] as { text: string }).text).toMatch(/nothing was charged/);
    } finally {
      await mcp.close();
    }
    expect(await system.balanceSoon(key, '0.300000')).toBe('0.300000');
  });

  it('MCP with x402: the paid tool call is an error saying nothing was charged, and nothing is settled', async () => {
    const payTo = system.chain!.accounts.payTo.address;
    const before = await system.chain!.balanceOf(payTo);
    const asked = system.facilitator!.stats().settleCalls;
    const mcp = new Client({ name: 'e2e-agent', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${system.baseUrl}/mcp`)));
    try {
      const unpaid = (await mcp.callTool({ name: 'apps_get', arguments: { appId: '544007664' } })) as CallToolResult;
      const payment = await client.createPaymentPayload(unpaid.structuredContent as unknown as PaymentRequired);
      const result = (await mcp.callTool({
        name: 'apps_get',
        arguments: { appId: '544007664' },
        _meta: { 'x402/payment': payment },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect((result.content[0] as { text: string }).text).toMatch(/nothing was charged$/);
      expect(result._meta?.['x402/payment-response']).toBeUndefined();
    } finally {
      await mcp.close();
    }
    expect(system.facilitator!.stats().settleCalls).toBe(asked);
    expect(await system.chain!.balanceOf(payTo)).toBe(before);
  });

  it('with a stale copy held, the call is served STALE and charged (credits and x402)', async () => {
    // The lookup cached in the first test is fresh for 1 s; after that it is only a stale copy.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, cachedAt + 1100 - Date.now())));
    const { key } = await system.createKey('0.3');
    const answer = await system.get('/api/apps/284882215', key);
    expect(answer.status).toBe(200);
    expect(answer.headers['x-cache']).toBe('STALE');
    expect(answer.headers['x-credits-remaining']).toBe('0.297000');

    const payTo = system.chain!.accounts.payTo.address;
    const before = await system.chain!.balanceOf(payTo);
    const payload = await client.createPaymentPayload(await system.challenge('/api/apps/284882215'));
    const paid = await fetch(`${system.baseUrl}/api/apps/284882215`, {
      headers: { 'payment-signature': encodePaymentSignatureHeader(payload) },
    });
    expect(paid.status).toBe(200);
    expect(paid.headers.get('x-cache')).toBe('STALE');
    expect(paid.headers.get('payment-response')).toBeTruthy();
    expect((await system.chain!.balanceOf(payTo)) - before).toBe(3000n);
    system.emulator.clearFaults();
  });
});

describe('pre-charge availability: a spent rate budget', () => {
  let system: System;

  beforeAll(async () => {
    // One iTunes call a minute, and no waiting for the next token: the second miss finds the budget spent.
    // Lookup is the route's only source here, so no other source answers in its place.
    system = await System.start({
      env: {
        ITUNES_RATE_PER_MIN: '1',
        ITUNES_BURST: '1',
        UPSTREAM_RATE_LIMIT_MAX_WAIT_MS: '0',
        APPLE_SOURCES_APPS_GET: 'itunes',
      },
    });
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('neither the call that finds the budget spent nor the next is charged: 502s saying so, with Retry-After', async () => {
    const created = await system.createKey('0.3');
    expect((await system.get('/api/apps/284882215', created.key)).status).toBe(200);
    const finds = await system.get('/api/apps/389801252', created.key);
    expect(finds.status).toBe(502);
    expect(finds.body.message).toMatch(
      /^upstream store rate limit reached: 1 calls a minute to [^;]+; retry after \d+ s; nothing was charged$/,
    );
    expect(finds.headers['x-credits-remaining']).toBeUndefined();
    const refused = await system.get('/api/apps/310633997', created.key);
    expect(refused.status).toBe(502);
    expect(refused.body.message).toMatch(
      /^upstream store rate limit reached: 1 calls a minute to itunes; retry after \d+ s; nothing was charged$/,
    );
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['x-credits-remaining']).toBeUndefined();
    expect(await system.balanceSoon(created.key, '0.297000')).toBe('0.297000');
  });
});

describe("2026's empty reviews feed never reaches a caller, the cache or the ledger", () => {
  let system: System;

  beforeAll(async () => {
    // The feed is the reviews route's only source: nothing stands in for it.
    system = await System.start({ env: { APPLE_SOURCES_APPS_REVIEWS: 'feed,feed-id-first' } });
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('is an uncharged 502 naming the sources tried, and the next call after the feed recovers gets the reviews', async () => {
    const created = await system.createKey('0.3');
    system.emulator.setDrift({ reviewsFeed: 'empty' });
    const suspect = await system.get('/api/apps/284882215/reviews', created.key);
    expect(suspect.status).toBe(502);
    expect(suspect.body.message).toMatch(/^no source could answer apps\.reviews \(feed: no reviews while Lookup/);
    expect(suspect.body.message).toMatch(/; nothing was charged$/);
    expect(suspect.headers['x-credits-remaining']).toBeUndefined();
    expect(await system.balanceSoon(created.key, '0.300000')).toBe('0.300000');
    // Nothing reached the ledger either (the write-behind runs every 100 ms here).
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await system.ledger(created.id)).toEqual({ toppedUp: 300_000n, spent: 0n, debits: 0 });
    system.emulator.setDrift({ reviewsFeed: 'entries' });
    // Past the failure memo (2 s), the feed is asked again: nothing suspect was cached.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const reviews = await system.get('/api/apps/284882215/reviews', created.key);
    expect(reviews.status).toBe(200);
    expect((reviews.body.data as { resultCount: number }).resultCount).toBe(50);
    // The answer names the source that produced it, and so does its cache hit.
    expect(reviews.headers['x-upstream-source']).toBe('feed');
    const again = await system.get('/api/apps/284882215/reviews', created.key);
    expect([again.headers['x-cache'], again.headers['x-upstream-source']]).toEqual(['CACHE', 'feed']);
  });
});
