/*
 * x402 end to end on Base, offline: anvil with test USDC at Base's real USDC address, the dev facilitator
 * settling on it (and on the other local EVM chains, see x402-networks.e2e.spec.ts), and the official @x402 client paying the gateway. Every payment is checked on chain.
 */
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { X402Checkout } from '@appcat/gateway';
import { jest } from '@jest/globals';
import { X402Keyspace } from '@appcat/payments';
import { Redis } from 'ioredis';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { System } from './support/system.js';

const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const MONAD_USDC = '0x754704Bc059F8C67012fEd69BC8A327a5aafb603';

describe('x402 through every service', () => {
  let system: System;
  let client: x402Client;
  let paidFetch: typeof fetch;
  let payTo: `0x${string}`;

  beforeAll(async () => {
    system = await System.start({ x402: true });
    const chain = system.chain!;
    payTo = chain.accounts.payTo.address;
    client = new x402Client();
    registerExactEvmScheme(client, { signer: privateKeyToAccount(chain.accounts.payer.privateKey) });
    paidFetch = wrapFetchWithPayment(fetch, client);
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
  });

  const challenge = (path: string, init?: RequestInit): Promise<PaymentRequired> => system.challenge(path, init);

  /** A signed payment for `path`'s challenge, as the header the client would send. */
  async function signedFor(
    path: string,
    init: RequestInit = {},
    tamper?: (payload: PaymentPayload) => void,
  ): Promise<string> {
    const payload = await client.createPaymentPayload(await challenge(path, init));
    tamper?.(payload);
    return encodePaymentSignatureHeader(payload);
  }

  const send = (path: string, signature: string, init?: RequestInit) => system.paid(path, signature, init);

  /** A new payer holding `funds` of test USDC on Base (none: a wallet that can sign but not pay). */
  async function payerWith(funds: bigint): Promise<x402Client> {
    const account = privateKeyToAccount(generatePrivateKey());
    if (funds > 0n) await system.chain!.mint(account.address, funds);
    return registerExactEvmScheme(new x402Client(), { signer: account });
  }

  const signedBy = async (payer: x402Client, path: string) =>
    encodePaymentSignatureHeader(await payer.createPaymentPayload(await challenge(path)));

  it('challenges an unpaid call with the route, price, USDC on Base then Monad and our payTo, then Solana', async () => {
    const required = await challenge('/api/apps?term=chess');
    expect(required).toMatchObject({
      x402Version: 2,
      resource: {
        url: `${system.baseUrl}/api/apps?term=chess`,
        description: 'Search App Store apps by term',
        mimeType: 'application/json',
      },
    });
    expect(required.accepts).toEqual([
      expect.objectContaining({
        scheme: 'exact',
        network: 'eip155:8453',
        amount: '3000',
        asset: BASE_USDC,
        payTo,
        extra: { name: 'USD Coin', version: '2' },
      }),
      expect.objectContaining({
        scheme: 'exact',
        network: 'eip155:143',
        amount: '3000',
        asset: MONAD_USDC,
        payTo,
        extra: { name: 'USDC', version: '2' },
      }),
      expect.objectContaining({
        scheme: 'exact',
        network: system.solana!.network,
        amount: '3000',
        asset: system.solana!.usdcMint,
      }),
    ]);
  });

  it('the official client pays a call: 200 with data, a receipt, and exactly 3000 more USDC for payTo', async () => {
    const before = await system.chain!.balanceOf(payTo);
    const asked = system.facilitator!.stats();
    const res = await paidFetch(system.baseUrl + '/api/apps/284882215');
    expect(res.status).toBe(200);
    // The payer's first payment: checked here (signature included), its funds by /verify before the fetch, then settled.
    const stats = system.facilitator!.stats();
    expect([stats.verifyCalls - asked.verifyCalls, stats.settleCalls - asked.settleCalls]).toEqual([1, 1]);
    const body = (await res.json()) as { data: { results: { trackId: number }[] } };
    expect(body.data.results[0].trackId).toBe(284882215);
    const receipt = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(receipt).toMatchObject({
      success: true,
      network: 'eip155:8453',
      payer: system.chain!.accounts.payer.address,
    });
    expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(res.headers.get('payment-response')!.length).toBeLessThan(1024);
    expect((await system.chain!.balanceOf(payTo)) - before).toBe(3000n);
  });

  it('one payload sent twice, then five times at once, is delivered once each time, and only the first copy reaches the facilitator', async () => {
    const before = await system.chain!.balanceOf(payTo);
    const settlesBefore = system.facilitator!.stats().settleCalls;
    const first = await signedFor('/api/apps/284882215');
    expect((await send('/api/apps/284882215', first)).status).toBe(200);
    const again = await send('/api/apps/284882215', first);
    expect(again.status).toBe(402);
    expect(again.body.message).toBe('payment already used');
    expect(again.headers.get('payment-required')).toBeTruthy();

    const second = await signedFor('/api/apps/284882215');
    const answers = await Promise.all(Array.from({ length: 5 }, () => send('/api/apps/284882215', second)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 402)).toHaveLength(4);
    expect((await system.chain!.balanceOf(payTo)) - before).toBe(6000n);
    // The copies that lost the claim never reached the facilitator.
    expect(system.facilitator!.stats().settleCalls - settlesBefore).toBe(2);
  });

  it.each([
    [
      'malformed base64',
      () => Promise.resolve('%%%not-base64%%%'),
      /payment-signature is not a base64 JSON x402 payment payload/,
    ],
    [
      'malformed JSON',
      () => Promise.resolve(Buffer.from('{"x402Version":').toString('base64')),
      /payment-signature is not a base64 JSON x402 payment payload/,
    ],
    [
      'a wrong network',
      () => signedFor('/api/apps/1', {}, (p) => ((p.accepted as { network: string }).network = 'eip155:1')),
      /network eip155:1 is not accepted here/,
    ],
    [
      'a wrong asset',
      () =>
        signedFor(
          '/api/apps/1',
          {},
          (p) => ((p.accepted as { asset: string }).asset = '0x0000000000000000000000000000000000000001'),
        ),
      /not the USDC this resource accepts/,
    ],
    [
      'a wrong payTo',
      () =>
        signedFor(
          '/api/apps/1',
          {},
          (p) => ((p.accepted as { payTo: string }).payTo = '0x0000000000000000000000000000000000000002'),
        ),
      /not addressed to this service/,
    ],
    [
      'too small an amount',
      () => signedFor('/api/apps/1', {}, (p) => ((p.accepted as { amount: string }).amount = '2999')),
      /below the price/,
    ],
    [
      'a bad signature',
      () =>
        signedFor('/api/apps/1', {}, (p) => {
          const evm = p.payload as { signature: string };
          evm.signature = evm.signature.slice(0, -4) + (evm.signature.endsWith('aaaa') ? 'bbbb' : 'aaaa');
        }),
      /payment rejected: invalid_exact_evm_signature/,
    ],
    [
      'an expired authorization',
      () =>
        signedFor('/api/apps/1', {}, (p) => {
          (p.payload as { authorization: { validBefore: string } }).authorization.validBefore = '1';
        }),
      /payment authorization has expired/,
    ],
    ['a payload bought for another resource', () => signedFor('/api/apps/2'), /payment was made for another resource/],
    [
      'a payload bought for a top-up',
      () => signedFor('/api/credits/topup?amount=1', { method: 'POST' }),
      /another resource|does not match the price/,
    ],
  ])('%s → 402 naming the reason, nothing delivered, nothing paid', async (_name, make, reason) => {
    const before = await system.chain!.balanceOf(payTo);
    const answer = await send('/api/apps/1', await make());
    expect(answer.status).toBe(402);
    expect(answer.body.message).toMatch(reason);
    expect(answer.body.data).toBeNull();
    expect(answer.headers.get('payment-required')).toBeTruthy();
    expect(await system.chain!.balanceOf(payTo)).toBe(before);
  });

  /** A genuinely signed payment for `path` whose authorization is valid for `seconds`, as offered otherwise. */
  async function signedLasting(path: string, seconds: number): Promise<{ header: string; payload: PaymentPayload }> {
    const required = await challenge(path);
    const offered = required.accepts[0];
    const payload = await client.createPaymentPayload({
      ...required,
      accepts: [{ ...offered, maxTimeoutSeconds: seconds }],
    });
    payload.accepted = offered;
    return { header: encodePaymentSignatureHeader(payload), payload };
  }

  const settleCalls = () => system.facilitator!.stats().settleCalls;

  it('an authorization valid for a year is refused before any facilitator request', async () => {
    const asked = settleCalls();
    const { header } = await signedLasting('/api/apps/1', 365 * 86_400);
    const answer = await send('/api/apps/1', header);
    expect(answer.status).toBe(402);
    expect(answer.body.message).toBe('payment authorization is valid for longer than 300 s (maxTimeoutSeconds)');
    expect(settleCalls()).toBe(asked);
  });

  it('an authorization not valid yet, or expired, is refused before any facilitator request', async () => {
    const asked = settleCalls();
    const later = await signedFor('/api/apps/1', {}, (p) => {
      (p.payload as { authorization: { validAfter: string } }).authorization.validAfter = String(
        Math.floor(Date.now() / 1000) + 120,
      );
    });
    expect((await send('/api/apps/1', later)).body.message).toBe('payment authorization is not valid yet');
    const expired = await signedFor('/api/apps/1', {}, (p) => {
      (p.payload as { authorization: { validBefore: string } }).authorization.validBefore = String(
        Math.floor(Date.now() / 1000) - 1,
      );
    });
    expect((await send('/api/apps/1', expired)).body.message).toBe('payment authorization has expired');
    expect(settleCalls()).toBe(asked);
  });

  it("a settled payload's replay lock lasts until its authorization expires (plus the clock slack), not a fixed time", async () => {
    const { header, payload } = await signedLasting('/api/apps/284882215', 60);
    expect((await send('/api/apps/284882215', header)).status).toBe(200);
    const { from, nonce } = (payload.payload as { authorization: { from: string; nonce: string } }).authorization;
    const redis = new Redis(system.redis.url);
    try {
      // Payments runs with one shard here (LEDGER_STREAM_SHARDS unset on one Redis).
      const ttl = await redis.pttl(
        new X402Keyspace(1).keysOf(`eip155:8453:${from.toLowerCase()}:${nonce.toLowerCase()}`).lock,
      );
      // validBefore is 60 s away; with the 30 s slack the lock ends within 90 s, well before the 330 s a full-length one gets.
      expect(ttl).toBeGreaterThan(60_000);
      expect(ttl).toBeLessThanOrEqual(90_000);
    } finally {
      redis.disconnect();
    }
    expect((await send('/api/apps/284882215', header)).body.message).toBe('payment already used');
  });

  it('a 0.003 payment cannot buy a top-up', async () => {
    const callPayment = await client.createPaymentPayload(await challenge('/api/apps/1'));
    (callPayment as { resource?: unknown }).resource = undefined;
    const answer = await send('/api/credits/topup?amount=1', encodePaymentSignatureHeader(callPayment), {
      method: 'POST',
    });
    expect(answer.status).toBe(402);
    expect(answer.body.message).toMatch(/below the price \(1000000 required\)/);
  });

  it('a top-up creates a key holding exactly the amount paid; a recharge adds to it; a replay credits once', async () => {
    const before = await system.chain!.balanceOf(payTo);
    const created = await paidFetch(system.baseUrl + '/api/credits/topup?amount=1', { method: 'POST' });
    expect(created.status).toBe(200);
    const { data } = (await created.json()) as { data: { apiKey: string; balance: string } };
    expect(data.balance).toBe('1.000000');
    expect(await system.balance(data.apiKey)).toBe('1.000000');
    expect((await system.get('/api/apps/284882215', data.apiKey)).status).toBe(200);

    // The official client refuses to sign more than USD 1 a payment by default; a recharge of 1 is enough here.
    const init = { method: 'POST', headers: { authorization: `Bearer ${data.apiKey}` } };
    const recharge = await signedFor('/api/credits/topup?amount=1', init);
    const recharged = await send('/api/credits/topup?amount=1', recharge, init);
    expect(recharged.status).toBe(200);
    expect(recharged.body.data).toMatchObject({ balance: '1.997000', credited: '1.000000' });
    const replayed = await send('/api/credits/topup?amount=1', recharge, init);
    expect(replayed.status).toBe(402);
    expect(await system.balance(data.apiKey)).toBe('1.997000');
    expect((await system.chain!.balanceOf(payTo)) - before).toBe(2_000_000n);
  });

  it('a revoked key cannot be recharged, and no money moves', async () => {
    const created = await system.createKey('1');
    await system.revoke(created.id);
    const before = await system.chain!.balanceOf(payTo);
    const init = { method: 'POST', headers: { authorization: `Bearer ${created.key}` } };
    const answer = await send(
      '/api/credits/topup?amount=1',
      await signedFor('/api/credits/topup?amount=1', init),
      init,
    );
    expect(answer.status).toBe(401);
    expect(await system.chain!.balanceOf(payTo)).toBe(before);
  });

  it('a recharge racing a revoke takes no money the key does not receive: the revoke waits for the settling recharge', async () => {
    const created = await system.createKey('1');
    const init = { method: 'POST', headers: { authorization: `Bearer ${created.key}` } };
    const signature = await signedFor('/api/credits/topup?amount=1', init);
    const before = await system.chain!.balanceOf(payTo);
    const settlesBefore = system.facilitator!.stats().settleCalls;
    const letGo = system.facilitator!.hold();
    let revoked = false;
    try {
      const recharging = send('/api/credits/topup?amount=1', signature, init);
      // The key was checked and the settlement is on its way when the revoke comes.
      while (system.facilitator!.stats().settleCalls === settlesBefore) await new Promise((r) => setTimeout(r, 10));
      const revoking = system.revoke(created.id).then(() => (revoked = true));
      await Promise.race([revoking, new Promise((r) => setTimeout(r, 500))]);
      expect(revoked).toBe(false);
      letGo();
      const [recharged] = await Promise.all([recharging, revoking]);
      expect(recharged.status).toBe(200);
    } finally {
      letGo();
    }
    // The money moved, and the key holds it (an operator can refund it from the revoked key).
    expect((await system.chain!.balanceOf(payTo)) - before).toBe(1_000_000n);
    expect((await system.ledger(created.id)).toppedUp).toBe(2_000_000n);
    expect((await system.get('/api/credits/balance', created.key)).status).toBe(401);
  });

  it('an unreachable facilitator → 502 naming it, nothing delivered', async () => {
    const signature = await signedFor('/api/apps/284882215');
    system.facilitator!.setUnavailable(true);
    try {
      const answer = await send('/api/apps/284882215', signature);
      expect(answer.status).toBe(502);
      expect(answer.body.message).toMatch(/facilitator/);
    } finally {
      system.facilitator!.setUnavailable(false);
    }
    // The payload was not used: it can still buy the call.
    expect((await send('/api/apps/284882215', signature)).status).toBe(200);
  });

  describe('checked before the upstream is asked, settled once the data is in hand', () => {
    const upstreamCalls = () => system.emulator.requestCount();

    it('a failed fetch settles nothing, and the same payment then buys the retry', async () => {
      const path = '/api/apps?term=x402-failing-store';
      const signature = await signedFor(path);
      const before = await system.chain!.balanceOf(payTo);
      const asked = system.facilitator!.stats();
      system.emulator.setRequestHook(() => ({ response: { status: 503, body: 'maintenance' } }));
      try {
        const failed = await send(path, signature);
        expect(failed.status).toBe(502);
        expect(failed.body.message).toMatch(/nothing was charged$/);
        expect(failed.headers.get('payment-response')).toBeNull();
      } finally {
        system.emulator.setRequestHook(undefined);
      }
      expect(system.facilitator!.stats().settleCalls).toBe(asked.settleCalls);
      expect(await system.chain!.balanceOf(payTo)).toBe(before);

      // The catalog remembers the failure for CACHE_FAILURE_TTL_MS (2 s): each retry until then is
      // another uncharged 502, and gives the payment back again.
      let retried = await send(path, signature);
      for (let tries = 1; retried.status === 502 && tries < 40; tries++) {
        expect(retried.body.message).toMatch(/nothing was charged$/);
        await new Promise((r) => setTimeout(r, 250));
        retried = await send(path, signature);
      }
      expect([retried.status, retried.body.message]).toEqual([200, 'ok']);
      expect(retried.headers.get('payment-response')).toBeTruthy();
      expect((await system.chain!.balanceOf(payTo)) - before).toBe(3000n);
      expect((await send(path, signature)).body.message).toBe('payment already used');
    });

    it.each([
      [
        'a bad signature',
        (p: PaymentPayload) => {
          const evm = p.payload as { signature: string };
          evm.signature =
            evm.signature.slice(0, -6) +
            (evm.signature.slice(-6, -2) === 'aaaa' ? 'bbbb' : 'aaaa') +
            evm.signature.slice(-2);
        },
        /payment rejected: invalid_exact_evm_signature/,
      ],
      [
        'an authorization for less than the price',
        (p: PaymentPayload) => {
          (p.payload as { authorization: { value: string } }).authorization.value = '2999';
        },
        /authorization value does not match the price/,
      ],
      [
        'an authorization to another payTo',
        (p: PaymentPayload) => {
          (p.payload as { authorization: { to: string } }).authorization.to =
            '0x0000000000000000000000000000000000000002';
        },
        /not addressed to this service/,
      ],
      [
        'a wrong network',
        (p: PaymentPayload) => ((p.accepted as { network: string }).network = 'eip155:1'),
        /network eip155:1/,
      ],
      [
        'an expired authorization',
        (p: PaymentPayload) => {
          (p.payload as { authorization: { validBefore: string } }).authorization.validBefore = '1';
        },
        /has expired/,
      ],
    ])('a worthless payment (%s) is refused before any upstream request', async (name, tamper, reason) => {
      const path = `/api/apps?term=${encodeURIComponent(`x402-worthless ${name}`)}`;
      const signature = await signedFor(path, {}, tamper);
      const asked = upstreamCalls();
      const settles = system.facilitator!.stats().settleCalls;
      const answer = await send(path, signature);
      expect(answer.status).toBe(402);
      expect(answer.body.message).toMatch(reason);
      expect(upstreamCalls()).toBe(asked);
      expect(system.facilitator!.stats().settleCalls).toBe(settles);
    });

    it('a payer that can sign but holds no USDC is refused by /verify before any upstream request', async () => {
      const path = '/api/apps?term=x402-unfunded';
      const signature = await signedBy(await payerWith(0n), path);
      const asked = upstreamCalls();
      const stats = system.facilitator!.stats();
      const answer = await send(path, signature);
      expect(answer.status).toBe(402);
      expect(answer.body.message).toMatch(/^payment rejected: \S*insufficient_balance/);
      expect(answer.headers.get('payment-required')).toBeTruthy();
      expect(upstreamCalls()).toBe(asked);
      const after = system.facilitator!.stats();
      expect([after.verifyCalls - stats.verifyCalls, after.settleCalls - stats.settleCalls]).toEqual([1, 0]);
    });

    it('a payer known to have paid is not verified again; once drained, its settle fails (402 naming the reason, nothing delivered) and it is verified again', async () => {
      const payer = await payerWith(6000n);
      const stats = () => system.facilitator!.stats();
      const first = stats();
      expect(
        (await send('/api/apps?term=x402-drained-1', await signedBy(payer, '/api/apps?term=x402-drained-1'))).status,
      ).toBe(200);
      expect(
        (await send('/api/apps?term=x402-drained-2', await signedBy(payer, '/api/apps?term=x402-drained-2'))).status,
      ).toBe(200);
      // Verified once, at its first payment; the second was held on what payments remembered.
      expect([stats().verifyCalls - first.verifyCalls, stats().settleCalls - first.settleCalls]).toEqual([1, 2]);

      // Drained: the one call this costs is fetched, then its settle is refused.
      const drained = await send(
        '/api/apps?term=x402-drained-3',
        await signedBy(payer, '/api/apps?term=x402-drained-3'),
      );
      expect(drained.status).toBe(402);
      expect(drained.body.message).toMatch(/^settlement failed: \S+/);
      expect(drained.body.data).toBeNull();
      expect(drained.headers.get('payment-required')).toBeTruthy();
      expect(drained.headers.get('payment-response')).toBeNull();

      // Forgotten: the next payment is verified, and refused before any upstream request.
      const asked = upstreamCalls();
      const again = await send('/api/apps?term=x402-drained-4', await signedBy(payer, '/api/apps?term=x402-drained-4'));
      expect(again.status).toBe(402);
      expect(again.body.message).toMatch(/^payment rejected: \S*insufficient_balance/);
      expect(upstreamCalls()).toBe(asked);
    });
  });

  describe("data already in the gateway's near cache: paid in one request to payments (X402Checkout.pay)", () => {
    const path = '/api/apps/284882215';
    let checkout: X402Checkout;
    let authorized: jest.SpiedFunction<X402Checkout['authorize']>;
    let paidAtOnce: jest.SpiedFunction<X402Checkout['pay']>;
    let key: string;

    beforeAll(async () => {
      key = (await system.createKey('1')).key;
      checkout = system.gateway.get(X402Checkout);
      authorized = jest.spyOn(checkout, 'authorize');
      paidAtOnce = jest.spyOn(checkout, 'pay');
    });
    afterAll(() => jest.restoreAllMocks());

    /**
     * A credit-paid call (quick: no facilitator) that puts `path`'s answer in the near cache afresh (kept
     * GATEWAY_NEAR_CACHE_MS, 1 s, from when its read was sent): after waiting out what an earlier call
     * left there, since a hit does not renew its entry.
     */
    async function fillNearCache(): Promise<void> {
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect((await system.get(path, key)).status).toBe(200);
    }

    /** Sends `signature` for `path` on a near-cache hit, and says whether it was paid at once (not held). */
    async function sendOnNearHit(signature: string) {
      await fillNearCache();
      const [authorizedBefore, paidBefore] = [authorized.mock.calls.length, paidAtOnce.mock.calls.length];
      const answer = await send(path, signature);
      return {
        answer,
        atOnce: paidAtOnce.mock.calls.length - paidBefore === 1 && authorized.mock.calls.length === authorizedBefore,
      };
    }

    it('is checked, claimed and settled in one request: delivered once, settled once, a replay refused', async () => {
      const signature = await signedFor(path);
      const before = await system.chain!.balanceOf(payTo);
      const asked = system.facilitator!.stats();
      const { answer, atOnce } = await sendOnNearHit(signature);
      expect(atOnce).toBe(true);
      expect([answer.status, answer.body.message]).toEqual([200, 'ok']);
      expect(decodePaymentResponseHeader(answer.headers.get('payment-response')!)).toMatchObject({
        success: true,
        network: 'eip155:8453',
      });
      // Settled once, with no /verify.
      const stats = system.facilitator!.stats();
      expect([stats.verifyCalls - asked.verifyCalls, stats.settleCalls - asked.settleCalls]).toEqual([0, 1]);
      expect((await system.chain!.balanceOf(payTo)) - before).toBe(3000n);

      const replay = await sendOnNearHit(signature);
      expect(replay.atOnce).toBe(true);
      expect([replay.answer.status, replay.answer.body.message]).toEqual([402, 'payment already used']);
      expect(replay.answer.body.data).toBeNull();
      expect(replay.answer.headers.get('payment-required')).toBeTruthy();
      expect(system.facilitator!.stats().settleCalls - asked.settleCalls).toBe(1);
    });

    it('a forged signature is refused by the facilitator: 402 naming the reason, nothing delivered or paid, and the genuine payment still buys the call', async () => {
      const genuine = await signedFor(path);
      const forged = JSON.parse(Buffer.from(genuine, 'base64').toString()) as PaymentPayload;
      const evm = forged.payload as { signature: string };
      evm.signature =
        evm.signature.slice(0, -6) +
        (evm.signature.slice(-6, -2) === 'aaaa' ? 'bbbb' : 'aaaa') +
        evm.signature.slice(-2);
      const before = await system.chain!.balanceOf(payTo);
      const { answer, atOnce } = await sendOnNearHit(encodePaymentSignatureHeader(forged));
      expect(atOnce).toBe(true);
      expect(answer.status).toBe(402);
      expect(answer.body.message).toMatch(/^settlement failed: \S+/);
      expect(answer.body.data).toBeNull();
      expect(answer.headers.get('payment-required')).toBeTruthy();
      expect(answer.headers.get('payment-response')).toBeNull();
      expect(await system.chain!.balanceOf(payTo)).toBe(before);
      // The forgery copies the genuine payment's payer and nonce: its claim was given back, not marked refused.
      const paid = await sendOnNearHit(genuine);
      expect([paid.answer.status, paid.atOnce]).toEqual([200, true]);
      expect((await system.chain!.balanceOf(payTo)) - before).toBe(3000n);
    });

    it('a facilitator that cannot be reached gives the claim back: nothing delivered, and the same payment buys the call after', async () => {
      const signature = await signedFor(path);
      await fillNearCache();
      const before = await system.chain!.balanceOf(payTo);
      const paidBefore = paidAtOnce.mock.calls.length;
      system.facilitator!.setUnavailable(true);
      let failed: Awaited<ReturnType<typeof send>>;
      try {
        failed = await send(path, signature);
      } finally {
        system.facilitator!.setUnavailable(false);
      }
      expect(paidAtOnce.mock.calls.length - paidBefore).toBe(1);
      expect(failed.status).toBe(502);
      expect(failed.body.message).toMatch(/facilitator/);
      expect(failed.body.data).toBeNull();
      expect(await system.chain!.balanceOf(payTo)).toBe(before);
      const retry = await sendOnNearHit(signature);
      expect([retry.answer.status, retry.atOnce]).toEqual([200, true]);
      expect((await system.chain!.balanceOf(payTo)) - before).toBe(3000n);
    });
  });

  describe('a payment the gateway holds while it fetches (X402Checkout.authorize)', () => {
    const path = '/api/apps/284882215';
    const offer = { price: '3000', networks: 'standard' } as const;
    const resource = () => ({
      url: system.baseUrl + path,
      description: 'Look up an app by id',
      mimeType: 'application/json',
    });
    const held = (signature: string) =>
      system.gateway.get(X402Checkout).authorize({
        paymentSignature: signature,
        offer,
        resource: resource(),
        route: 'apps.get',
        requestId: 'hold-test',
      });

    it('takes nothing until captured: a failed call releases it, and the same payment then buys the retry, once', async () => {
      const before = await system.chain!.balanceOf(payTo);
      const asked = system.facilitator!.stats();
      const signature = await signedFor(path);
      const hold = await held(signature);
      expect(await system.chain!.balanceOf(payTo)).toBe(before);
      hold.release(); // the fetch failed
      const retry = await send(path, signature);
      expect(retry.status).toBe(200);
      expect((await system.chain!.balanceOf(payTo)) - before).toBe(3000n);
      const stats = system.facilitator!.stats();
      expect([stats.verifyCalls - asked.verifyCalls, stats.settleCalls - asked.settleCalls]).toEqual([0, 1]);
      expect((await send(path, signature)).body.message).toBe('payment already used');
    });

    it('settles on capture, with the receipt; a release after it gives nothing back', async () => {
      const before = await system.chain!.balanceOf(payTo);
      const signature = await signedFor(path);
      const hold = await held(signature);
      const charge = await hold.capture();
      expect(charge).toMatchObject({
        method: 'x402',
        receipt: { network: 'eip155:8453', payer: system.chain!.accounts.payer.address },
      });
      hold.release();
      expect((await send(path, signature)).body.message).toBe('payment already used');
      expect((await system.chain!.balanceOf(payTo)) - before).toBe(3000n);
    });

    it('a worthless payment is refused by authorize itself, with a fresh challenge naming the reason', async () => {
      const signature = await signedFor(path, {}, (p) => {
        (p.payload as { authorization: { value: string } }).authorization.value = '1';
      });
      await expect(held(signature)).rejects.toMatchObject({
        status: 402,
        message: 'payment authorization value does not match the price (3000 required)',
        headers: { 'payment-required': expect.any(String) },
      });
    });

    it('an unfunded payer is refused at the hold, a drained one at the capture: 402 naming the reason, nothing taken', async () => {
      await expect(held(await signedBy(await payerWith(0n), path))).rejects.toMatchObject({
        status: 402,
        message: expect.stringMatching(/^payment rejected: \S*insufficient_balance/),
        headers: { 'payment-required': expect.any(String) },
      });
      // Paid once (so it is known, and held without /verify), then drained.
      const payer = await payerWith(3000n);
      const paid = await held(await signedBy(payer, path));
      await paid.capture();
      const hold = await held(await signedBy(payer, path));
      await expect(hold.capture()).rejects.toMatchObject({
        status: 402,
        message: expect.stringMatching(/^settlement failed: \S+/),
        headers: { 'payment-required': expect.any(String) },
      });
    });
  });
});
