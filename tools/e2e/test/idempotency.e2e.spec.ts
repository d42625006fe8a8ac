/*
 * Never twice for one call: a retry named by an `Idempotency-Key` (credits) or by x402's
 * `payment-identifier` gets the first charged answer again without a second debit or settlement — sequential,
 * concurrent across two gateway replicas and two payments replicas, and after the client gave up on a
 * slow settlement; top-ups too, whose remembered answer (the new key) Redis holds only sealed. A failed
 * call is not remembered; a revoked key gets no remembered answer back; a remembered answer is never
 * served for another route or other parameters. Every
 * part real: Postgres, Redis, NATS, anvil with the dev facilitator, the official x402 and MCP clients.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { x402Client } from '@x402/core/client';
import type { PaymentRequired } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { appendPaymentIdentifierToExtensions, generatePaymentId } from '@x402/extensions/payment-identifier';
import { wrapFetchWithPayment } from '@x402/fetch';
import { Redis } from 'ioredis';
import { createHash, randomUUID } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { System } from './support/system.js';

interface Answer {
  status: number;
  headers: Headers;
  body: { status: number; message: string; data: unknown };
}

describe('idempotent retries', () => {
  let system: System;
  let client: x402Client;
  let payTo: `0x${string}`;

  beforeAll(async () => {
    system = await System.start({ x402: true, paymentsReplicas: 2, gatewayReplicas: 2 });
    client = new x402Client();
    registerExactEvmScheme(client, { signer: privateKeyToAccount(system.chain!.accounts.payer.privateKey) });
    payTo = system.chain!.accounts.payTo.address;
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
  });

  async function send(url: string, headers: Record<string, string>, init: RequestInit = {}): Promise<Answer> {
    const res = await fetch(url, { ...init, headers });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Answer['body'] };
  }

  const keyed = (gateway: string, path: string, key: string, idempotencyKey: string) =>
    send(gateway + path, { authorization: `Bearer ${key}`, 'idempotency-key': idempotencyKey });

  describe('Idempotency-Key on credit-paid calls', () => {
    it('the same key and request twice: the first answer again, one debit', async () => {
      const created = await system.createKey('0.3');
      const idempotencyKey = randomUUID();
      const first = await keyed(system.baseUrl, '/api/apps/284882215', created.key, idempotencyKey);
      const again = await keyed(system.gatewayUrls[1], '/api/apps/284882215', created.key, idempotencyKey);
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('x-credits-remaining')).toBe('0.297000');
      expect(again.headers.get('x-cache')).toBe(first.headers.get('x-cache'));
      expect(await system.balance(created.key)).toBe('0.297000');
      await system.waitForSpent(created.id, 3000n);
      expect((await system.ledger(created.id)).debits).toBe(1);
    });

    it('the same key with another request: 409 envelope, nothing charged', async () => {
      const created = await system.createKey('0.3');
      const idempotencyKey = randomUUID();
      expect((await keyed(system.baseUrl, '/api/apps/284882215', created.key, idempotencyKey)).status).toBe(200);
      const other = await keyed(system.baseUrl, '/api/apps/284882215?country=gb', created.key, idempotencyKey);
      expect(other.status).toBe(409);
      expect(other.body).toEqual({ status: 409, message: 'Idempotency-Key was used for another request', data: null });
      expect(await system.balance(created.key)).toBe('0.297000');
    });

    it('a key is scoped to its API key: another API key with the same Idempotency-Key makes its own call', async () => {
      const [a, b] = [await system.createKey('0.3'), await system.createKey('0.3')];
      const idempotencyKey = randomUUID();
      expect((await keyed(system.baseUrl, '/api/apps/284882215', a.key, idempotencyKey)).status).toBe(200);
      expect((await keyed(system.baseUrl, '/api/apps/284882215', b.key, idempotencyKey)).status).toBe(200);
      expect([await system.balance(a.key), await system.balance(b.key)]).toEqual(['0.297000', '0.297000']);
    });

    it('ten concurrent duplicates over two gateway replicas: one debit, every caller the same answer', async () => {
      const created = await system.createKey('0.3');
      const idempotencyKey = randomUUID();
      // An uncached app: the first call goes upstream, so the others arrive while it is still running.
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          keyed(system.gatewayUrls[i % 2], '/api/apps/389801252/similar', created.key, idempotencyKey),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
      for (const answer of answers) expect(answer.body).toEqual(answers[0].body);
      expect(new Set(answers.map((a) => a.headers.get('x-credits-remaining')))).toEqual(new Set(['0.297000']));
      expect(await system.balance(created.key)).toBe('0.297000');
      await system.waitForSpent(created.id, 3000n);
      expect((await system.ledger(created.id)).debits).toBe(1);
    });

    it.each([
      ['empty', ''],
      ['256 characters', 'k'.repeat(256)],
      ['a space', 'two words'],
    ])('a malformed key (%s) is a 400 naming the header, nothing charged', async (_name, value) => {
      const created = await system.createKey('0.3');
      const answer = await keyed(system.baseUrl, '/api/apps/284882215', created.key, value);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        status: 400,
        message: 'Idempotency-Key must be 1 to 255 visible ASCII characters',
        data: null,
      });
      expect(await system.balance(created.key)).toBe('0.300000');
    });

    it('a failed call is not remembered: its retry with the same key is a fresh try, charged once when it succeeds', async () => {
      const created = await system.createKey('0.3');
      const idempotencyKey = randomUUID();
      // A search nobody made before, so nothing cached answers it while the store fails.
      const path = '/api/apps?term=idempotent-failure';
      // Nonsense from the store fails the call without opening its breaker, so the retry can reach it.
      system.emulator.setRequestHook(() => ({ response: { status: 200, body: 'this is not json' } }));
      let failed: Answer;
      try {
        failed = await keyed(system.baseUrl, path, created.key, idempotencyKey);
      } finally {
        system.emulator.setRequestHook(undefined);
      }
      expect(failed.status).toBe(502);
      expect(failed.body.message).toMatch(/; nothing was charged$/);
      expect(failed.headers.get('x-credits-remaining')).toBeNull();
      expect(await system.balanceSoon(created.key, '0.300000')).toBe('0.300000');
      // The catalog remembers the store's failure for CACHE_FAILURE_TTL_MS (2 s): each retry until then is a
      // fresh try failing uncharged, then one is served; one debit in all.
      let retried: Answer;
      const deadline = Date.now() + 10_000;
      do retried = await keyed(system.gatewayUrls[1], path, created.key, idempotencyKey);
      while (retried.status === 502 && Date.now() < deadline);
      expect(retried.status).toBe(200);
      expect(retried.headers.get('x-credits-remaining')).toBe('0.297000');
      await system.waitForSpent(created.id, 3000n);
      expect((await system.ledger(created.id)).debits).toBe(1);
    });

    it('revocation wins over a remembered answer: a revoked key replaying its Idempotency-Key gets 401, over HTTP and MCP', async () => {
      const created = await system.createKey('0.3');
      const idempotencyKey = randomUUID();
      const headers = { authorization: `Bearer ${created.key}`, 'idempotency-key': idempotencyKey };
      const toolCall = async () => {
        const mcp = new Client({ name: 'e2e-agent', version: '1.0.0' });
        await mcp.connect(
          new StreamableHTTPClientTransport(new URL(`${system.baseUrl}/mcp`), { requestInit: { headers } }),
        );
        try {
          return (await mcp.callTool({ name: 'apps_get', arguments: { appId: '284882215' } })) as CallToolResult;
        } finally {
          await mcp.close();
        }
      };
      expect((await keyed(system.baseUrl, '/api/apps/284882215', created.key, idempotencyKey)).status).toBe(200);
      expect((await toolCall()).isError ?? false).toBe(false);
      await system.revoke(created.prefix);
      for (const gateway of system.gatewayUrls) {
        const replayed = await keyed(gateway, '/api/apps/284882215', created.key, idempotencyKey);
        expect(replayed.body).toEqual({ status: 401, message: 'api key revoked', data: null });
      }
      expect(await toolCall()).toEqual({ isError: true, content: [{ type: 'text', text: 'api key revoked' }] });
    });

    it('MCP: two tool calls with the same Idempotency-Key are charged once', async () => {
      const created = await system.createKey('0.3');
      const idempotencyKey = randomUUID();
      const results: CallToolResult[] = [];
      for (const gateway of system.gatewayUrls) {
        const mcp = new Client({ name: 'e2e-agent', version: '1.0.0' });
        await mcp.connect(
          new StreamableHTTPClientTransport(new URL(`${gateway}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${created.key}`, 'idempotency-key': idempotencyKey } },
          }),
        );
        results.push((await mcp.callTool({ name: 'apps_get', arguments: { appId: '284882215' } })) as CallToolResult);
        await mcp.close();
      }
      expect(results.map((r) => r.isError ?? false)).toEqual([false, false]);
      expect(results[1].content).toEqual(results[0].content);
      expect(await system.balance(created.key)).toBe('0.297000');
    });
  });

  describe('x402 payment-identifier', () => {
    const challenge = (path: string, init?: RequestInit): Promise<PaymentRequired> => system.challenge(path, init);

    /** A payment for `path` carrying `id` in its payment-identifier extension, as a client adds it. */
    async function paymentWithId(path: string, id: string): Promise<string> {
      const required = await challenge(path);
      const payload = await client.createPaymentPayload({
        ...required,
        extensions: appendPaymentIdentifierToExtensions({ ...required.extensions }, id),
      });
      return encodePaymentSignatureHeader(payload);
    }

    const paid = (gateway: string, path: string, signature: string, init: RequestInit = {}) =>
      send(gateway + path, { 'payment-signature': signature }, init);
    const settled = () => system.facilitator!.stats().settleCalls;

    it('every 402 declares the extension, the id not required', async () => {
      const required = await challenge('/api/apps/284882215');
      expect(required.extensions?.['payment-identifier']).toMatchObject({
        info: { required: false },
        schema: { required: ['required'] },
      });
    });

    it('the same id and payload again: the first answer (status, body, payment-response), settled once', async () => {
      const before = await system.chain!.balanceOf(payTo);
      const asked = settled();
      const signature = await paymentWithId('/api/apps/284882215', generatePaymentId());
      const first = await paid(system.baseUrl, '/api/apps/284882215', signature);
      const again = await paid(system.gatewayUrls[1], '/api/apps/284882215', signature);
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('payment-response')).toBe(first.headers.get('payment-response'));
      expect(settled() - asked).toBe(1);
      expect((await system.chain!.balanceOf(payTo)) - before).toBe(3000n);
    });

    it('the same id with another payload: 409 envelope, nothing settled', async () => {
      const id = generatePaymentId();
      expect(
        (await paid(system.baseUrl, '/api/apps/284882215', await paymentWithId('/api/apps/284882215', id))).status,
      ).toBe(200);
      const before = await system.chain!.balanceOf(payTo);
      const asked = settled();
      const other = await paid(system.baseUrl, '/api/apps/284882215', await paymentWithId('/api/apps/284882215', id));
      expect(other.status).toBe(409);
      expect(other.body).toEqual({
        status: 409,
        message: 'payment-identifier was used with another payment or for another call',
        data: null,
      });
      expect(settled()).toBe(asked);
      expect(await system.chain!.balanceOf(payTo)).toBe(before);
    });

    it('a remembered answer belongs to its route and parameters: the same payment sent elsewhere is a 409, never that answer', async () => {
      const signature = await paymentWithId('/api/apps/284882215', generatePaymentId());
      const first = await paid(system.baseUrl, '/api/apps/284882215', signature);
      expect(first.status).toBe(200);
      const asked = settled();
      for (const elsewhere of ['/api/developers/284882218', '/api/apps/284882215?country=fr']) {
        const answer = await paid(system.gatewayUrls[1], elsewhere, signature);
        expect(answer.body).toEqual({
          status: 409,
          message: 'payment-identifier was used with another payment or for another call',
          data: null,
        });
      }
      expect(settled()).toBe(asked);
    });

    it('concurrent copies over two gateway replicas: one settlement, every copy the same 200 and receipt', async () => {
      const before = await system.chain!.balanceOf(payTo);
      const signature = await paymentWithId('/api/apps/284882215', generatePaymentId());
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => paid(system.gatewayUrls[i % 2], '/api/apps/284882215', signature)),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
      expect(new Set(answers.map((a) => a.headers.get('payment-response'))).size).toBe(1);
      expect((await system.chain!.balanceOf(payTo)) - before).toBe(3000n);
    });

    it("a settlement slowed past the client's patience, retried with the same id and payload, settles exactly once", async () => {
      const before = await system.chain!.balanceOf(payTo);
      const asked = settled();
      const signature = await paymentWithId('/api/apps/284882215', generatePaymentId());
      system.facilitator!.setDelayMs(1500);
      try {
        await expect(
          paid(system.baseUrl, '/api/apps/284882215', signature, { signal: AbortSignal.timeout(300) }),
        ).rejects.toThrow();
        const retried = await paid(system.gatewayUrls[1], '/api/apps/284882215', signature);
        expect(retried.status).toBe(200);
        expect(retried.headers.get('payment-response')).toBeTruthy();
      } finally {
        system.facilitator!.setDelayMs(0);
      }
      expect(settled() - asked).toBe(1);
      expect((await system.chain!.balanceOf(payTo)) - before).toBe(3000n);
    });

    it('MCP: the same payment with an id in _meta, sent twice, settles once and answers the same; another payment under the id is refused', async () => {
      const before = await system.chain!.balanceOf(payTo);
      const mcp = new Client({ name: 'e2e-agent', version: '1.0.0' });
      await mcp.connect(new StreamableHTTPClientTransport(new URL(`${system.baseUrl}/mcp`)));
      try {
        const unpaid = (await mcp.callTool({ name: 'apps_get', arguments: { appId: '284882215' } })) as CallToolResult;
        const required = unpaid.structuredContent as unknown as PaymentRequired;
        const id = generatePaymentId();
        const payment = await client.createPaymentPayload({
          ...required,
          extensions: appendPaymentIdentifierToExtensions({ ...required.extensions }, id),
        });
        const call = async (paying: unknown) =>
          (await mcp.callTool({
            name: 'apps_get',
            arguments: { appId: '284882215' },
            _meta: { 'x402/payment': paying },
          })) as CallToolResult;
        const [first, again] = [await call(payment), await call(payment)];
        expect([first.isError ?? false, again.isError ?? false]).toEqual([false, false]);
        expect(again.content).toEqual(first.content);
        expect(again._meta?.['x402/payment-response']).toEqual(first._meta?.['x402/payment-response']);
        // Another payment under the same id: a tool error naming the conflict, nothing settled.
        const asked = system.facilitator!.stats().settleCalls;
        const other = await call(
          await client.createPaymentPayload({
            ...required,
            extensions: appendPaymentIdentifierToExtensions({ ...required.extensions }, id),
          }),
        );
        expect(other.isError).toBe(true);
        expect(other.content).toEqual([
          { type: 'text', text: 'payment-identifier was used with another payment or for another call' },
        ]);
        expect(system.facilitator!.stats().settleCalls).toBe(asked);
      } finally {
        await mcp.close();
      }
      expect((await system.chain!.balanceOf(payTo)) - before).toBe(3000n);
    });
  });
  describe('payment-identifier on top-ups', () => {
    const TOPUP = '/api/credits/topup?amount=1';
    const settled = () => system.facilitator!.stats().settleCalls;
    const keyHash = (key: string) => createHash('sha256').update(key).digest('hex');

    /**
     * The official client (@x402/fetch over @x402/evm) putting `id` in every payment it makes, as
     * x402's own example does. `deliver` carries each paid request (by default: sends it), so a test
     * can keep it and send it again as a retry, or a proxy's duplicate, would.
     */
    function buyerWithId(
      id: string,
      deliver: (request: Request) => Promise<Response> = (request) => fetch(request),
    ): typeof fetch {
      const payer = new x402Client();
      registerExactEvmScheme(payer, { signer: privateKeyToAccount(system.chain!.accounts.payer.privateKey) });
      payer.onBeforePaymentCreation(async ({ paymentRequired }) => {
        appendPaymentIdentifierToExtensions((paymentRequired.extensions ??= {}), id);
      });
      return wrapFetchWithPayment((input, init) => {
        const request = new Request(input, init);
        return request.headers.has('payment-signature') ? deliver(request) : fetch(request);
      }, payer);
    }

    /** The paid request's headers, to send it again. */
    const headersOf = (request: Request) => Object.fromEntries(request.headers);
    const resend = (gateway: string, headers: Record<string, string>, init: RequestInit = {}) =>
      send(gateway + TOPUP, headers, { method: 'POST', ...init });

    /** Postgres's view of the key: credited how much, by how many top-ups. */
    async function credited(key: string): Promise<{ toppedUp: bigint; topUps: number }> {
      const { rows } = await system.db.query<{ topped_up_micros: string; top_ups: string }>(
        `SELECT k.topped_up_micros, (SELECT count(*) FROM top_ups t WHERE t.api_key_id = k.id) AS top_ups FROM api_keys k WHERE k.key_hash = $1`,
        [keyHash(key)],
      );
      return { toppedUp: BigInt(rows[0].topped_up_micros), topUps: Number(rows[0].top_ups) };
    }
    const x402TopUps = async () =>
      Number(
        (await system.db.query<{ n: string }>(`SELECT count(*) AS n FROM top_ups WHERE method = 'x402'`)).rows[0].n,
      );

    it('a new-key top-up retried with the same id and payload: the same key and payment-response, credited and paid once', async () => {
      const before = await system.chain!.balanceOf(payTo);
      const [asked, topUps] = [settled(), await x402TopUps()];
      let paid: Record<string, string> = {};
      const buy = buyerWithId(generatePaymentId(), (request) => {
        paid = headersOf(request);
        return fetch(request);
      });
      const res = await buy(system.baseUrl + TOPUP, { method: 'POST' });
      const first = { status: res.status, headers: res.headers, body: (await res.json()) as Answer['body'] };
      const again = await resend(system.gatewayUrls[1], paid);
      expect(first.status).toBe(200);
      const { apiKey } = first.body.data as { apiKey: string };
      expect(apiKey).toMatch(/^ak_/);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('payment-response')).toBe(first.headers.get('payment-response'));
      expect(settled() - asked).toBe(1);
      expect((await system.chain!.balanceOf(payTo)) - before).toBe(1_000_000n);
      expect(await x402TopUps()).toBe(topUps + 1);
      expect(await credited(apiKey)).toEqual({ toppedUp: 1_000_000n, topUps: 1 });
      expect(await system.balance(apiKey)).toBe('1.000000');
    });

    it('Redis holds no plaintext key: the record is its hashed name, the fingerprint and the sealed answer', async () => {
      const id = generatePaymentId();
      const res = await buyerWithId(id)(system.baseUrl + TOPUP, { method: 'POST' });
      expect(res.status).toBe(200);
      const { apiKey } = ((await res.json()) as { data: { apiKey: string } }).data;
      const redis = new Redis(system.redis.url);
      try {
        const record = await redis.hgetall(`idem:{x402:${createHash('sha256').update(id).digest('base64url')}}`);
        expect(Object.keys(record).sort()).toEqual(['answer', 'fp', 'token']);
        expect(record.answer).toMatch(/^sealed\.v1\.[A-Za-z0-9_-]+$/);
        // Every value of every key, read by type: neither the key, its base64, nor the id is anywhere.
        const secrets = [apiKey, Buffer.from(apiKey).toString('base64'), Buffer.from(apiKey).toString('base64url'), id];
        let scanned = 0;
        for (const name of await redis.keys('*')) {
          const values = await valuesOf(redis, name);
          scanned += 1;
          for (const text of [name, ...values])
            for (const secret of secrets)
              expect(text.includes(secret) ? `${name} holds ${secret}` : 'clean').toBe('clean');
        }
        expect(scanned).toBeGreaterThan(5);
      } finally {
        redis.disconnect();
      }
    });

    it('concurrent copies of a top-up over two gateway replicas: one settlement, one key, every copy the same answer', async () => {
      const before = await system.chain!.balanceOf(payTo);
      const asked = settled();
      // The client's own delivery is lost on the way; what it signed then arrives six times at once.
      let paid: Record<string, string> = {};
      const buy = buyerWithId(generatePaymentId(), async (request) => {
        paid = headersOf(request);
        return new Response(null, { status: 504 });
      });
      expect((await buy(system.baseUrl + TOPUP, { method: 'POST' })).status).toBe(504);
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => resend(system.gatewayUrls[i % 2], paid)));
      expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
      for (const answer of answers) expect(answer.body).toEqual(answers[0].body);
      expect(new Set(answers.map((a) => a.headers.get('payment-response'))).size).toBe(1);
      expect(settled() - asked).toBe(1);
      expect((await system.chain!.balanceOf(payTo)) - before).toBe(1_000_000n);
      expect(await credited((answers[0].body.data as { apiKey: string }).apiKey)).toEqual({
        toppedUp: 1_000_000n,
        topUps: 1,
      });
    });

    it("a top-up whose settlement outlasts the client's patience, retried with the same payment, settles once and gives the key", async () => {
      const before = await system.chain!.balanceOf(payTo);
      const asked = settled();
      let paid: Record<string, string> = {};
      const patience = new AbortController();
      const buy = buyerWithId(generatePaymentId(), (request) => {
        paid = headersOf(request);
        return fetch(request, { signal: patience.signal });
      });
      const release = system.facilitator!.hold();
      let retried: Promise<Answer> | undefined;
      try {
        const first = buy(system.baseUrl + TOPUP, { method: 'POST' });
        // The settlement reached the facilitator, which holds it: the client gives up and retries elsewhere.
        while (settled() === asked) await new Promise((resolve) => setTimeout(resolve, 20));
        patience.abort();
        await expect(first).rejects.toThrow();
        retried = resend(system.gatewayUrls[1], paid);
      } finally {
        release();
      }
      const answer = await retried!;
      expect(answer.status).toBe(200);
      expect(answer.headers.get('payment-response')).toBeTruthy();
      expect(settled() - asked).toBe(1);
      expect((await system.chain!.balanceOf(payTo)) - before).toBe(1_000_000n);
      expect(await credited((answer.body.data as { apiKey: string }).apiKey)).toEqual({
        toppedUp: 1_000_000n,
        topUps: 1,
      });
    });

    it('the same id with another payload (a fresh signature, or the same one for a recharge): 409, nothing settled', async () => {
      const id = generatePaymentId();
      let paid: Record<string, string> = {};
      const buy = buyerWithId(id, (request) => {
        paid = headersOf(request);
        return fetch(request);
      });
      expect((await buy(system.baseUrl + TOPUP, { method: 'POST' })).status).toBe(200);
      const before = await system.chain!.balanceOf(payTo);
      const [asked, topUps] = [settled(), await x402TopUps()];
      // The official client signs anew (a new nonce) under the same id.
      const fresh = await buy(system.baseUrl + TOPUP, { method: 'POST' });
      expect(fresh.status).toBe(409);
      expect(await fresh.json()).toEqual({
        status: 409,
        message: 'payment-identifier was used with another payment or for another call',
        data: null,
      });
      // The very same payment, now to recharge a key: another purchase.
      const other = await system.createKey('0.3');
      const recharge = await resend(system.baseUrl, { ...paid, authorization: `Bearer ${other.key}` });
      expect(recharge.status).toBe(409);
      expect(settled()).toBe(asked);
      expect(await system.chain!.balanceOf(payTo)).toBe(before);
      expect(await x402TopUps()).toBe(topUps);
      expect(await system.balance(other.key)).toBe('0.300000');
    });

    it('a recharge retried with the same id and payload: the same answer, credited once', async () => {
      const created = await system.createKey('0.3');
      const asked = settled();
      let paid: Record<string, string> = {};
      const buy = buyerWithId(generatePaymentId(), (request) => {
        paid = headersOf(request);
        return fetch(request);
      });
      const res = await buy(system.baseUrl + TOPUP, {
        method: 'POST',
        headers: { authorization: `Bearer ${created.key}` },
      });
      const first = { status: res.status, headers: res.headers, body: (await res.json()) as Answer['body'] };
      const again = await resend(system.gatewayUrls[1], paid);
      expect(first.status).toBe(200);
      expect(first.body.data).toMatchObject({ balance: '1.300000', credited: '1.000000' });
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('payment-response')).toBe(first.headers.get('payment-response'));
      expect(settled() - asked).toBe(1);
      expect(await credited(created.key)).toEqual({ toppedUp: 1_300_000n, topUps: 2 });
      expect(await system.balance(created.key)).toBe('1.300000');
    });
  });
});

/** Every value a Redis key holds, as text, whatever its type. */
async function valuesOf(redis: Redis, name: string): Promise<string[]> {
  switch (await redis.type(name)) {
    case 'string':
      return [(await redis.get(name)) ?? ''];
    case 'hash':
      return Object.entries(await redis.hgetall(name)).flat();
    case 'list':
      return redis.lrange(name, 0, -1);
    case 'set':
      return redis.smembers(name);
    case 'zset':
      return redis.zrange(name, '0', '-1');
    case 'stream':
      return (await redis.xrange(name, '-', '+')).flatMap(([entryId, fields]) => [entryId, ...fields]);
    default:
      return [];
  }
}
