/*
 * x402 on every EVM network the spec names, offline: one anvil per network with its chain id and test
 * USDC at its real USDC address, the dev facilitator settling on all of them, and the official client
 * (@x402/fetch over @x402/evm) paying on the network it is given. Every payment is checked on its chain.
 */
import { type X402NetworkName, x402Network } from '@appcat/contracts';
import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { System } from './support/system.js';

const APPS_PATH = '/api/apps/284882215';
const DEVELOPERS_PATH = '/api/developers/284882218';

describe('x402 on Base, Monad, Polygon and Arbitrum', () => {
  let system: System;

  beforeAll(async () => {
    system = await System.start({ x402: true });
  }, 180_000);

  afterAll(async () => {
    await system?.stop();
  });

  /** The official client, able to pay on `name`'s network only: it takes that network's entry of a challenge. */
  const clientOn = (name: X402NetworkName) =>
    registerExactEvmScheme(new x402Client(), {
      signer: privateKeyToAccount(system.stack!.evmPayerKey),
      networks: [x402Network(name).network as `${string}:${string}`],
    });

  const challenge = (path: string, init?: RequestInit): Promise<PaymentRequired> => system.challenge(path, init);

  const send = (path: string, signature: string, init?: RequestInit) => system.paid(path, signature, init);

  it('offers Base, Monad and Solana on an apps route, and also Polygon and Arbitrum on the developers route, each EVM one at its USDC and the local payTo', async () => {
    const payTo = system.chain!.accounts.payTo.address;
    const solana = x402Network('solana').network;
    expect((await challenge(APPS_PATH)).accepts.map((a) => a.network)).toEqual(['eip155:8453', 'eip155:143', solana]);
    const developers = await challenge(DEVELOPERS_PATH);
    expect(developers.accepts.map((a) => a.network)).toEqual([
      'eip155:8453',
      'eip155:143',
      solana,
      'eip155:137',
      'eip155:42161',
    ]);
    for (const name of ['base', 'monad', 'polygon', 'arbitrum'] as const) {
      const facts = x402Network(name);
      expect(developers.accepts.find((a) => a.network === facts.network)).toMatchObject({
        amount: '3000',
        asset: facts.asset,
        payTo,
        extra: { name: facts.assetName, version: facts.assetVersion },
      });
    }
  });

  it.each(['base', 'monad', 'polygon', 'arbitrum'] as const)(
    'a call paid on %s: 200, payTo holds exactly 3000 more on that chain, and the receipt names the network and the transaction',
    async (name) => {
      const chain = system.stack!.chain(name);
      const payTo = chain.accounts.payTo.address;
      const others = (['base', 'monad', 'polygon', 'arbitrum'] as const)
        .filter((n) => n !== name)
        .map((n) => system.stack!.chain(n));
      const [before, othersBefore] = await Promise.all([
        chain.balanceOf(payTo),
        Promise.all(others.map((c) => c.balanceOf(payTo))),
      ]);

      const res = await wrapFetchWithPayment(fetch, clientOn(name))(system.baseUrl + DEVELOPERS_PATH);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { status: number }).status).toBe(200);
      const receipt = decodePaymentResponseHeader(res.headers.get('payment-response')!);
      expect(receipt).toMatchObject({ success: true, network: chain.network, payer: chain.accounts.payer.address });
      expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      // The transaction is on that chain, and moved the money there alone.
      const onChain = await createPublicClient({
        chain: chain.chain,
        transport: http(chain.rpcUrl),
      }).getTransactionReceipt({
        hash: receipt.transaction as `0x${string}`,
      });
      expect(onChain.status).toBe('success');
      expect((await chain.balanceOf(payTo)) - before).toBe(3000n);
      expect(await Promise.all(others.map((c) => c.balanceOf(payTo)))).toEqual(othersBefore);
    },
  );

  it('a USD 1 top-up paid on Monad creates a key holding exactly USD 1', async () => {
    const chain = system.stack!.chain('monad');
    const before = await chain.balanceOf(chain.accounts.payTo.address);
    const res = await wrapFetchWithPayment(fetch, clientOn('monad'))(system.baseUrl + '/api/credits/topup?amount=1', {
      method: 'POST',
    });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { apiKey: string; balance: string } };
    expect(data.balance).toBe('1.000000');
    expect(decodePaymentResponseHeader(res.headers.get('payment-response')!)).toMatchObject({
      success: true,
      network: 'eip155:143',
    });
    expect(await system.balance(data.apiKey)).toBe('1.000000');
    expect((await chain.balanceOf(chain.accounts.payTo.address)) - before).toBe(1_000_000n);
  });

  it('a Polygon payment sent twice, then five times at once, is delivered once each time', async () => {
    const chain = system.stack!.chain('polygon');
    const payTo = chain.accounts.payTo.address;
    const client = clientOn('polygon');
    const before = await chain.balanceOf(payTo);
    const first = encodePaymentSignatureHeader(await client.createPaymentPayload(await challenge(DEVELOPERS_PATH)));
    expect((await send(DEVELOPERS_PATH, first)).status).toBe(200);
    const again = await send(DEVELOPERS_PATH, first);
    expect(again.status).toBe(402);
    expect(again.body.message).toBe('payment already used');

    const second = encodePaymentSignatureHeader(await client.createPaymentPayload(await challenge(DEVELOPERS_PATH)));
    const answers = await Promise.all(Array.from({ length: 5 }, () => send(DEVELOPERS_PATH, second)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 402)).toHaveLength(4);
    expect((await chain.balanceOf(payTo)) - before).toBe(6000n);
  });

  it('a Polygon payment on an apps route (which does not offer Polygon) is a 402 naming the reason, nothing delivered, nothing paid', async () => {
    const chain = system.stack!.chain('polygon');
    const before = await chain.balanceOf(chain.accounts.payTo.address);
    // Polygon's terms as the developers route offers them, signed for the apps route's resource.
    const polygon = (await challenge(DEVELOPERS_PATH)).accepts.find((a) => a.network === 'eip155:137')!;
    const apps = await challenge(APPS_PATH);
    const payload = await clientOn('polygon').createPaymentPayload({ ...apps, accepts: [polygon] });
    const answer = await send(APPS_PATH, encodePaymentSignatureHeader(payload));
    expect(answer.status).toBe(402);
    expect(answer.body.message).toBe('network eip155:137 is not accepted here');
    expect(answer.body.data).toBeNull();
    expect(await chain.balanceOf(chain.accounts.payTo.address)).toBe(before);
  });
});
