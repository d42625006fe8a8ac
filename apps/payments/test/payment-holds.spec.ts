/*
 * x402 payments held between the check and the charge, on real services: Redis, Postgres, the local
 * Base chain and Solana ledger, the dev facilitator, payments signed by the official clients. Two sets
 * of payments' x402 parts stand for two replicas sharing Redis: what one authorizes the other settles
 * or releases.
 */
import { type LocalPaymentStack, startLocalPaymentStack } from '@appcat/facilitator';
import { type ManagedProcess, startRedisServer } from '@appcat/testing';
import { createKeyPairSignerFromBytes, getBase58Encoder } from '@solana/kit';
import { x402Client } from '@x402/core/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { Redis } from 'ioredis';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { readPaymentsConfig } from '../src/config/payments-config.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';
import { x402Payments } from './support/x402-payments.js';

const offer = { price: '3000', networks: 'standard' } as const;
const resource = { url: 'http://127.0.0.1/api/apps/1', description: 'one call', mimeType: 'application/json' };
const paidFor = { purpose: 'call', route: 'apps.get', requestId: 'holds-test' } as const;

/** A TCP relay to the server at `url`; once shut, whoever used it finds its port refusing connections. */
async function relayTo(url: string): Promise<{ url: string; shut: () => Promise<void> }> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    shut: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

describe('x402 payments held, then settled or released', () => {
  let redisServer: ManagedProcess;
  let redis: Redis;
  let database: TestDatabase;
  let stack: LocalPaymentStack;
  let replicas: ReturnType<typeof x402Payments>[];
  let evm: x402Client;
  let svm: x402Client;

  beforeAll(async () => {
    [redisServer, database] = await Promise.all([startRedisServer(), createTestDatabase('holds')]);
    redis = new Redis(redisServer.url);
    stack = await startLocalPaymentStack({ networks: ['base', 'solana'] });
    const config = readPaymentsConfig(stack.paymentsEnv);
    replicas = [
      x402Payments(config, { redis, pool: database.pool }),
      x402Payments(config, { redis, pool: database.pool }),
    ];
    await Promise.all(replicas.map((replica) => replica.check.run(50)));
    evm = registerExactEvmScheme(new x402Client(), { signer: privateKeyToAccount(stack.evmPayerKey) });
    const payer = await createKeyPairSignerFromBytes(
      new Uint8Array(getBase58Encoder().encode(stack.solana!.accounts.payer.secretKey)),
    );
    svm = new x402Client().register('solana:*', new ExactSvmScheme(payer, { rpcUrl: stack.solana!.url }));
  }, 90_000);
  afterAll(async () => {
    for (const replica of replicas ?? []) await replica.records.stop();
    await stack?.stop();
    redis?.disconnect();
    await redisServer?.stop();
    await database?.drop();
  });

  const [a, b] = [() => replicas[0].holds, () => replicas[1].holds];
  const chain = () => stack.chain('base');
  const payTo = () => chain().accounts.payTo.address;
  const stats = () => stack.facilitator.stats();

  // The demo payers have paid before (a settlement makes a payer known): most cases below are about a
  // known payer, whose payment is checked here alone. First-time payers: 'payers not known to hold funds'.
  beforeAll(async () => {
    await a().pay(await signed(), offer, resource, paidFor);
    await a().pay(await signed({ client: svm, network: stack.solana!.network }), offer, resource, paidFor);
  }, 30_000);

  /** A payment signed by `client` (the EVM payer by default) for the offer's entry on `network`, tampered with if asked. */
  async function signed(
    options: { client?: x402Client; network?: string; tamper?: (payload: PaymentPayload) => void } = {},
  ): Promise<string> {
    const accepts = await replicas[0].offers.accepts(offer);
    const requirement = accepts.find((entry) => entry.network === (options.network ?? 'eip155:8453'))!;
    const payload = await (options.client ?? evm).createPaymentPayload({
      x402Version: 2,
      resource,
      accepts: [requirement as never],
    });
    options.tamper?.(payload);
    return encodePaymentSignatureHeader(payload);
  }

  it('checks a payment without the facilitator, settles it on another replica, and marks it used for its life', async () => {
    const before = await chain().balanceOf(payTo());
    const asked = stats();
    const signature = await signed();
    const hold = await a().authorize(signature, offer, resource);
    // Nothing moved, and nobody was asked: the signature, amount, payTo and window were checked here.
    expect(await chain().balanceOf(payTo())).toBe(before);
    expect([stats().verifyCalls, stats().settleCalls]).toEqual([asked.verifyCalls, asked.settleCalls]);
    await expect(b().authorize(signature, offer, resource)).rejects.toMatchObject({
      code: 'PAYMENT_REPLAYED',
      message: 'payment already used',
    });

    const settled = await b().settle(signature, hold, resource, paidFor);
    expect(settled.receipt).toMatchObject({ network: 'eip155:8453', transaction: expect.stringMatching(/^0x/) });
    expect((await chain().balanceOf(payTo())) - before).toBe(3000n);
    expect(stats().settleCalls - asked.settleCalls).toBe(1);
    await expect(a().authorize(signature, offer, resource)).rejects.toMatchObject({ message: 'payment already used' });
    // A release that comes too late (the call was charged) changes nothing.
    expect(await a().release(hold)).toBe(false);
    await expect(a().authorize(signature, offer, resource)).rejects.toMatchObject({ message: 'payment already used' });
  });

  it('gives a released payment back, on any replica, so the same payload buys the retry; a stale hold cannot release the new one', async () => {
    const before = await chain().balanceOf(payTo());
    const signature = await signed();
    const first = await a().authorize(signature, offer, resource);
    expect(await b().release(first)).toBe(true);
    const retry = await b().authorize(signature, offer, resource);
    expect(await a().release(first)).toBe(false);
    await expect(a().authorize(signature, offer, resource)).rejects.toMatchObject({ code: 'PAYMENT_REPLAYED' });
    await a().settle(signature, retry, resource, paidFor);
    expect((await chain().balanceOf(payTo())) - before).toBe(3000n);
  });

  it.each([
    [
      'a bad signature (asked of /verify: a contract wallet could accept it)',
      (p: PaymentPayload) => {
        // Another s: a valid ECDSA signature of someone else.
        const evmPayload = p.payload as { signature: string };
        const s = evmPayload.signature;
        evmPayload.signature = s.slice(0, -6) + (s.slice(-6, -2) === 'aaaa' ? 'bbbb' : 'aaaa') + s.slice(-2);
      },
      /payment rejected: invalid_exact_evm_signature/,
      1,
    ],
    [
      'an authorization to another payTo',
      (p: PaymentPayload) => {
        (p.payload as { authorization: { to: string } }).authorization.to =
          '0x0000000000000000000000000000000000000002';
      },
      /not addressed to this service/,
      0,
    ],
    [
      'an authorization for less than the price',
      (p: PaymentPayload) => {
        (p.payload as { authorization: { value: string } }).authorization.value = '2999';
      },
      /authorization value does not match the price \(3000 required\)/,
      0,
    ],
    [
      'an expired authorization',
      (p: PaymentPayload) => {
        (p.payload as { authorization: { validBefore: string } }).authorization.validBefore = '1';
      },
      /payment authorization has expired/,
      0,
    ],
  ])(
    'refuses %s, settling nothing and holding nothing: the genuine payment is still free',
    async (_name, tamper, reason, verifies) => {
      const asked = stats();
      const genuine = await signed();
      const forged = JSON.parse(Buffer.from(genuine, 'base64').toString()) as PaymentPayload;
      tamper(forged);
      await expect(a().authorize(encodePaymentSignatureHeader(forged), offer, resource)).rejects.toMatchObject({
        code: 'PAYMENT_INVALID',
        message: expect.stringMatching(reason),
      });
      expect(stats().verifyCalls - asked.verifyCalls).toBe(verifies);
      expect(stats().settleCalls).toBe(asked.settleCalls);
      expect(await b().release(await b().authorize(genuine, offer, resource))).toBe(true);
    },
  );

  describe('payers not known to hold funds', () => {
    /** A new EVM payer holding `funds` of test USDC (atomic units). */
    async function payerWith(funds: bigint): Promise<x402Client> {
      const account = privateKeyToAccount(generatePrivateKey());
      if (funds > 0n) await chain().mint(account.address, funds);
      return registerExactEvmScheme(new x402Client(), { signer: account });
    }

    it('verifies a first-time payer (funds included) before holding its payment; once it settled, its next payment is held without asking', async () => {
      const payer = await payerWith(10_000n);
      const first = await signed({ client: payer });
      const asked = stats();
      const hold = await a().authorize(first, offer, resource);
      expect([stats().verifyCalls - asked.verifyCalls, stats().settleCalls - asked.settleCalls]).toEqual([1, 0]);
      await b().settle(first, hold, resource, paidFor);
      const next = await signed({ client: payer });
      const known = stats();
      // Known on every replica (the mark is in Redis).
      expect(await b().release(await b().authorize(next, offer, resource))).toBe(true);
      expect(stats().verifyCalls).toBe(known.verifyCalls);
    });

    it('refuses a payer without funds before holding anything (nothing would be fetched for it), and keeps refusing it', async () => {
      const poor = await payerWith(0n);
      const signature = await signed({ client: poor });
      const asked = stats();
      await expect(a().authorize(signature, offer, resource)).rejects.toMatchObject({
        code: 'PAYMENT_INVALID',
        message: expect.stringMatching(/^payment rejected: \S*insufficient_balance/),
      });
      // Not held, and not remembered: the same payload is verified, and refused, again.
      await expect(b().authorize(signature, offer, resource)).rejects.toMatchObject({ code: 'PAYMENT_INVALID' });
      expect([stats().verifyCalls - asked.verifyCalls, stats().settleCalls - asked.settleCalls]).toEqual([2, 0]);
    });

    it('forgets a payer whose settlement is refused: a wallet drained since it paid costs one held payment, then is verified again', async () => {
      const payer = await payerWith(6_000n);
      const first = await signed({ client: payer });
      await b().settle(first, await a().authorize(first, offer, resource), resource, paidFor);
      // Drained by a payment taken at once (no /verify there: nothing is fetched for it).
      await a().pay(await signed({ client: payer }), offer, resource, paidFor);
      const asked = stats();
      // Still known: held without asking, and its settlement is refused naming the reason.
      const drained = await signed({ client: payer });
      const hold = await a().authorize(drained, offer, resource);
      expect(stats().verifyCalls).toBe(asked.verifyCalls);
      await expect(b().settle(drained, hold, resource, paidFor)).rejects.toMatchObject({
        code: 'PAYMENT_SETTLEMENT_FAILED',
        message: expect.stringMatching(/^settlement failed: \S+/),
      });
      await expect(a().authorize(drained, offer, resource)).rejects.toMatchObject({
        code: 'PAYMENT_REPLAYED',
        message: 'payment already refused by the facilitator; sign a new one',
      });
      // Forgotten: its next payment is verified, and refused before any hold.
      await expect(a().authorize(await signed({ client: payer }), offer, resource)).rejects.toMatchObject({
        code: 'PAYMENT_INVALID',
        message: expect.stringMatching(/insufficient_balance/),
      });
      expect([stats().verifyCalls - asked.verifyCalls, stats().settleCalls - asked.settleCalls]).toEqual([1, 1]);
    });

    it('verifies a first-time payer when Redis cannot tell', async () => {
      const payer = await payerWith(10_000n);
      const signature = await signed({ client: payer });
      await b().settle(signature, await a().authorize(signature, offer, resource), resource, paidFor);
      const lost = new Redis(redisServer.url, {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
      });
      const blind = x402Payments(readPaymentsConfig(stack.paymentsEnv), { redis: lost, pool: database.pool });
      await blind.check.run(50);
      const asked = stats();
      // No claim, no lookup (Redis unreachable): the payer is verified, then held.
      const hold = await blind.holds.authorize(await signed({ client: payer }), offer, resource);
      expect(hold.paymentId).toBeTruthy();
      expect(stats().verifyCalls - asked.verifyCalls).toBe(1);
      lost.disconnect();
    });
  });

  it('gives the payment back when the facilitator is unreachable at settle, so it can be settled after', async () => {
    const signature = await signed();
    const hold = await a().authorize(signature, offer, resource);
    stack.facilitator.setUnavailable(true);
    try {
      await expect(b().settle(signature, hold, resource, paidFor)).rejects.toMatchObject({
        code: 'FACILITATOR_UNAVAILABLE',
      });
    } finally {
      stack.facilitator.setUnavailable(false);
    }
    const again = await b().authorize(signature, offer, resource);
    await expect(a().settle(signature, again, resource, paidFor)).resolves.toMatchObject({ amount: 3000n });
  });

  describe('paid at once, for data already in hand', () => {
    it('claims and settles in one request, leaving the signature to the facilitator; a copy is then refused', async () => {
      const before = await chain().balanceOf(payTo());
      const asked = stats();
      const signature = await signed();
      const settled = await a().pay(signature, offer, resource, paidFor);
      expect(settled.receipt).toMatchObject({ network: 'eip155:8453', transaction: expect.stringMatching(/^0x/) });
      expect((await chain().balanceOf(payTo())) - before).toBe(3000n);
      expect([stats().verifyCalls - asked.verifyCalls, stats().settleCalls - asked.settleCalls]).toEqual([0, 1]);
      await expect(b().pay(signature, offer, resource, paidFor)).rejects.toMatchObject({
        code: 'PAYMENT_REPLAYED',
        message: 'payment already used',
      });
      await expect(b().authorize(signature, offer, resource)).rejects.toMatchObject({ code: 'PAYMENT_REPLAYED' });
      expect(stats().settleCalls - asked.settleCalls).toBe(1);
    });

    it('settles one of two copies sent at once: the claim comes before the facilitator', async () => {
      const before = await chain().balanceOf(payTo());
      const asked = stats();
      const signature = await signed();
      const outcomes = await Promise.allSettled([
        a().pay(signature, offer, resource, paidFor),
        b().pay(signature, offer, resource, paidFor),
      ]);
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(outcomes.find((outcome) => outcome.status === 'rejected')).toMatchObject({
        reason: { code: 'PAYMENT_REPLAYED' },
      });
      expect(stats().settleCalls - asked.settleCalls).toBe(1);
      expect((await chain().balanceOf(payTo())) - before).toBe(3000n);
    });

    it('refuses a forged signature through the facilitator, settling nothing, and leaves the genuine payment free', async () => {
      const before = await chain().balanceOf(payTo());
      const genuine = await signed();
      const forged = JSON.parse(Buffer.from(genuine, 'base64').toString()) as PaymentPayload;
      const evmPayload = forged.payload as { signature: string };
      const s = evmPayload.signature;
      evmPayload.signature = s.slice(0, -6) + (s.slice(-6, -2) === 'aaaa' ? 'bbbb' : 'aaaa') + s.slice(-2);
      await expect(a().pay(encodePaymentSignatureHeader(forged), offer, resource, paidFor)).rejects.toMatchObject({
        code: 'PAYMENT_SETTLEMENT_FAILED',
        message: expect.stringMatching(/^settlement failed: \S+/),
      });
      expect(await chain().balanceOf(payTo())).toBe(before);
      // The forgery shares the genuine payment's identity (payer, nonce): its claim was given back, not refused.
      await b().pay(genuine, offer, resource, paidFor);
      expect((await chain().balanceOf(payTo())) - before).toBe(3000n);
    });

    it('refuses a payment without funds, and then refuses a copy at once', async () => {
      const poor = registerExactEvmScheme(new x402Client(), { signer: privateKeyToAccount(generatePrivateKey()) });
      const signature = await signed({ client: poor });
      await expect(a().pay(signature, offer, resource, paidFor)).rejects.toMatchObject({
        code: 'PAYMENT_SETTLEMENT_FAILED',
      });
      const asked = stats();
      await expect(b().pay(signature, offer, resource, paidFor)).rejects.toMatchObject({
        code: 'PAYMENT_REPLAYED',
        message: 'payment already refused by the facilitator; sign a new one',
      });
      expect(stats().settleCalls).toBe(asked.settleCalls);
    });

    it('refuses what authorize refuses before any request: another payTo, an expired authorization', async () => {
      const asked = stats();
      for (const tamper of [
        (p: PaymentPayload) => {
          (p.payload as { authorization: { to: string } }).authorization.to =
            '0x0000000000000000000000000000000000000002';
        },
        (p: PaymentPayload) => {
          (p.payload as { authorization: { validBefore: string } }).authorization.validBefore = '1';
        },
      ]) {
        await expect(a().pay(await signed({ tamper }), offer, resource, paidFor)).rejects.toMatchObject({
          code: 'PAYMENT_INVALID',
        });
      }
      expect([stats().verifyCalls, stats().settleCalls]).toEqual([asked.verifyCalls, asked.settleCalls]);
    });

    it('gives the claim back when the facilitator is unreachable, so the same payload pays after', async () => {
      const signature = await signed();
      stack.facilitator.setUnavailable(true);
      try {
        await expect(a().pay(signature, offer, resource, paidFor)).rejects.toMatchObject({
          code: 'FACILITATOR_UNAVAILABLE',
        });
      } finally {
        stack.facilitator.setUnavailable(false);
      }
      await expect(b().pay(signature, offer, resource, paidFor)).resolves.toMatchObject({ amount: 3000n });
    });
  });

  describe('with a facilitator that refuses connections', () => {
    /** A replica whose facilitator (reached through a relay, /supported read) can no longer be connected to. */
    async function cutOff(): Promise<ReturnType<typeof x402Payments>> {
      const relay = await relayTo(stack.facilitator.url);
      const config = readPaymentsConfig({ ...stack.paymentsEnv, X402_FACILITATOR_URL: relay.url });
      const replica = x402Payments(config, { redis, pool: database.pool });
      await replica.check.run(50);
      await relay.shut();
      // Its idle keep-alive connections are gone too: the next request must open one.
      replica.connection.client.close();
      return replica;
    }

    it('settle: FACILITATOR_UNREACHABLE (nothing was sent, so nothing charged), and the payment is given back', async () => {
      const replica = await cutOff();
      const before = await chain().balanceOf(payTo());
      const asked = stats();
      const signature = await signed();
      const hold = await a().authorize(signature, offer, resource);
      await expect(replica.holds.settle(signature, hold, resource, paidFor)).rejects.toMatchObject({
        code: 'FACILITATOR_UNREACHABLE',
        message: 'payment facilitator unreachable',
      });
      expect(stats().settleCalls).toBe(asked.settleCalls);
      expect(await chain().balanceOf(payTo())).toBe(before);
      await a().settle(signature, await a().authorize(signature, offer, resource), resource, paidFor);
      expect((await chain().balanceOf(payTo())) - before).toBe(3000n);
    });

    it('pay: FACILITATOR_UNREACHABLE, nothing settled, and the same payload pays after', async () => {
      const replica = await cutOff();
      const before = await chain().balanceOf(payTo());
      const asked = stats();
      const signature = await signed();
      await expect(replica.holds.pay(signature, offer, resource, paidFor)).rejects.toMatchObject({
        code: 'FACILITATOR_UNREACHABLE',
        message: 'payment facilitator unreachable',
      });
      expect(stats().settleCalls).toBe(asked.settleCalls);
      await a().pay(signature, offer, resource, paidFor);
      expect((await chain().balanceOf(payTo())) - before).toBe(3000n);
    });
  });

  describe('on Solana', () => {
    const ledger = () => stack.solana!;

    it('checks the transfer and the payer signature locally, then settles once', async () => {
      const before = await ledger().usdcBalance(ledger().accounts.payTo.address);
      const asked = stats();
      const signature = await signed({ client: svm, network: ledger().network });
      const hold = await a().authorize(signature, offer, resource);
      expect(stats().verifyCalls).toBe(asked.verifyCalls);
      await b().settle(signature, hold, resource, paidFor);
      expect((await ledger().usdcBalance(ledger().accounts.payTo.address)) - before).toBe(3000n);
      await expect(a().authorize(signature, offer, resource)).rejects.toMatchObject({ code: 'PAYMENT_REPLAYED' });
    });

    it('pays at once and settles once', async () => {
      const before = await ledger().usdcBalance(ledger().accounts.payTo.address);
      const signature = await signed({ client: svm, network: ledger().network });
      await a().pay(signature, offer, resource, paidFor);
      expect((await ledger().usdcBalance(ledger().accounts.payTo.address)) - before).toBe(3000n);
      await expect(b().pay(signature, offer, resource, paidFor)).rejects.toMatchObject({ code: 'PAYMENT_REPLAYED' });
    });

    it('refuses a transaction whose payer signature does not verify, before holding it', async () => {
      const asked = stats();
      const signature = await signed({
        client: svm,
        network: ledger().network,
        tamper: (p) => {
          const bytes = Buffer.from((p.payload as { transaction: string }).transaction, 'base64');
          bytes[1 + 64 + 10] ^= 1; // in the payer's signature (the slot after the fee payer's)
          (p.payload as { transaction: string }).transaction = bytes.toString('base64');
        },
      });
      await expect(a().authorize(signature, offer, resource)).rejects.toMatchObject({
        code: 'PAYMENT_INVALID',
        message: 'payment transaction signature does not verify',
      });
      expect([stats().verifyCalls, stats().settleCalls]).toEqual([asked.verifyCalls, asked.settleCalls]);
    });
  });
});
