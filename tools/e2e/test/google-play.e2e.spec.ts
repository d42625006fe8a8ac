/*
 * The sibling catalog end to end: Google Play's catalog and its gateway at an address of their own,
 * beside the App Store's, on one payments service. The official x402 client pays for a Google Play
 * developer on each of the five networks, and one API key (as `npm start` issues it) pays at both
 * addresses from one balance. Google Play's reviews and similar apps answer through either rail, an
 * unknown app and a bad sort as the App Store's do, and an implausible empty answer is never charged.
 */
import { type X402NetworkName, x402Network } from '@appcat/contracts';
import { SOLANA_DEV_ACCOUNTS } from '@appcat/solana-ledger';
import { PLAY_REFERENCE, playEmptyReviews } from '@appcat/store-emulator';
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { createKeyPairSignerFromBytes, getBase58Encoder } from '@solana/kit';
import { privateKeyToAccount } from 'viem/accounts';
import { System } from './support/system.js';

const DEVELOPER_PATH = `/api/developers/${PLAY_REFERENCE.googleLlc.id}?country=us`;
const EVM = ['base', 'monad', 'polygon', 'arbitrum'] as const;

describe('Google Play at its own address, on the same payments', () => {
  let system: System;

  beforeAll(async () => {
    system = await System.start({ x402: true, googlePlay: true });
  }, 240_000);

  afterAll(async () => {
    await system?.stop();
  });

  const at = async (base: string, path: string, key?: string) => {
    const res = await fetch(base + path, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    return {
      status: res.status,
      headers: res.headers,
      body: (await res.json()) as { status: number; message: string; data: unknown },
    };
  };
  const balanceAt = async (base: string, key: string) =>
    ((await at(base, '/api/credits/balance', key)).body.data as { balance: string }).balance;
  const evmClient = (name: X402NetworkName) =>
    registerExactEvmScheme(new x402Client(), {
      signer: privateKeyToAccount(system.stack!.evmPayerKey),
      networks: [x402Network(name).network as `${string}:${string}`],
    });

  it("offers the developers route on all five networks, in the developers route's order, for its own URL", async () => {
    const res = await fetch(system.playBaseUrl + DEVELOPER_PATH);
    expect(res.status).toBe(402);
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
    expect(required.resource.url).toBe(system.playBaseUrl + DEVELOPER_PATH);
    expect(required.accepts.map((a) => a.network)).toEqual(
      (['base', 'monad', 'solana', 'polygon', 'arbitrum'] as const).map((n) => x402Network(n).network),
    );
    expect(required.accepts.every((a) => a.amount === '3000')).toBe(true);
  });

  it.each(EVM)(
    "paid on %s with the official client: the developer's apps, and 3000 more at payTo on that chain",
    async (name) => {
      const chain = system.stack!.chain(name);
      const payTo = chain.accounts.payTo.address;
      const before = await chain.balanceOf(payTo);
      const res = await wrapFetchWithPayment(fetch, evmClient(name))(system.playBaseUrl + DEVELOPER_PATH);
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        status: number;
        data: { resultCount: number; results: { developer: string }[] };
      };
      expect(body.data.resultCount).toBe(PLAY_REFERENCE.googleLlc.apps);
      expect(body.data.results.every((app) => app.developer === 'Google LLC')).toBe(true);
      expect(decodePaymentResponseHeader(res.headers.get('payment-response')!)).toMatchObject({
        success: true,
        network: x402Network(name).network,
      });
      expect((await chain.balanceOf(payTo)) - before).toBe(3000n);
    },
  );

  it("paid on Solana with the official client: the developer's apps, and 3000 more at payTo on the ledger", async () => {
    const ledger = system.solana!;
    const signer = await createKeyPairSignerFromBytes(
      new Uint8Array(getBase58Encoder().encode(SOLANA_DEV_ACCOUNTS.payer.secretKey)),
    );
    const client = new x402Client().register('solana:*', new ExactSvmScheme(signer, { rpcUrl: ledger.url }));
    const payTo = SOLANA_DEV_ACCOUNTS.payTo.address;
    const before = await ledger.usdcBalance(payTo);
    const res = await wrapFetchWithPayment(fetch, client)(system.playBaseUrl + DEVELOPER_PATH);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { resultCount: number } }).data.resultCount).toBe(
      PLAY_REFERENCE.googleLlc.apps,
    );
    expect(decodePaymentResponseHeader(res.headers.get('payment-response')!).network).toBe(
      x402Network('solana').network,
    );
    expect((await ledger.usdcBalance(payTo)) - before).toBe(3000n);
  });

  it('one key, one balance, one ledger: a call at either address draws from it, a 400 or 404 draws nothing', async () => {
    const { key, id } = await system.createKey('5');
    const play = await at(system.playBaseUrl, DEVELOPER_PATH, key);
    expect(play.status).toBe(200);
    expect(play.headers.get('x-credits-remaining')).toBe('4.997000');
    expect(await balanceAt(system.baseUrl, key)).toBe('4.997000');

    const apple = await at(system.baseUrl, '/api/developers/284882218', key);
    expect(apple.status).toBe(200);
    expect(await balanceAt(system.playBaseUrl, key)).toBe('4.994000');

    const app = await at(system.playBaseUrl, `/api/apps/${PLAY_REFERENCE.minecraft.appId}`, key);
    expect(app.body.data).toEqual({
      resultCount: 1,
      results: [expect.objectContaining({ price: 6.99, developer: 'Mojang' })],
    });
    expect(app.headers.get('x-credits-remaining')).toBe('4.991000');

    expect((await at(system.playBaseUrl, '/api/developers/0123', key)).status).toBe(400);
    expect((await at(system.playBaseUrl, '/api/bundles/1482985563', key)).status).toBe(404);
    expect(await balanceAt(system.baseUrl, key)).toBe('4.991000');
    await system.waitForSpent(id, 9000n);
    expect(await system.ledger(id)).toMatchObject({ spent: 9000n, debits: 3 });
  });

  it("never replays one address's answer at the other: an Idempotency-Key names a request at one store", async () => {
    const { key } = await system.createKey('1');
    const named = (base: string) =>
      fetch(`${base}/api/apps/${PLAY_REFERENCE.minecraft.appId}`, {
        headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'same-name' },
      });
    const apple = await named(system.baseUrl);
    expect(apple.status).toBe(200);
    const play = await named(system.playBaseUrl);
    expect(play.status).toBe(409);
    expect(await balanceAt(system.playBaseUrl, key)).toBe('0.997000');
  });

  const REVIEWS_PATH = `/api/apps/${PLAY_REFERENCE.minecraft.appId}/reviews?sort=recent&page=2`;
  const SIMILAR_PATH = `/api/apps/${PLAY_REFERENCE.minecraft.appId}/similar`;

  it('answers reviews and similar apps through credits, as the App Store does an unknown app and a bad sort', async () => {
    const { key, id } = await system.createKey('1');
    const reviews = await at(system.playBaseUrl, REVIEWS_PATH, key);
    expect(reviews.status).toBe(200);
    const page = reviews.body.data as { resultCount: number; results: { appId: string; score: number }[] };
    expect(page.resultCount).toBe(50);
    expect(page.results.every((r) => r.appId === PLAY_REFERENCE.minecraft.appId && r.score >= 1)).toBe(true);
    expect(reviews.headers.get('x-credits-remaining')).toBe('0.997000');

    const similar = await at(system.playBaseUrl, SIMILAR_PATH, key);
    expect(similar.status).toBe(200);
    expect((similar.body.data as { resultCount: number }).resultCount).toBe(50);

    // An unknown app is a paid 200 with nothing, on either route, as the App Store's is.
    for (const path of ['/api/apps/com.example.nothing/reviews', '/api/apps/com.example.nothing/similar']) {
      const unknown = await at(system.playBaseUrl, path, key);
      expect([path, unknown.status, unknown.body.data]).toEqual([path, 200, { resultCount: 0, results: [] }]);
    }
    // A bad sort or page is a 400 naming it, never charged.
    const badSort = await at(
      system.playBaseUrl,
      `/api/apps/${PLAY_REFERENCE.minecraft.appId}/reviews?sort=newest`,
      key,
    );
    expect([badSort.status, badSort.body.message]).toEqual([400, 'sort must be one of: recent, helpful']);
    expect(
      (await at(system.playBaseUrl, `/api/apps/${PLAY_REFERENCE.minecraft.appId}/reviews?page=11`, key)).status,
    ).toBe(400);
    expect(await balanceAt(system.playBaseUrl, key)).toBe('0.988000');
    await system.waitForSpent(id, 12_000n);
    expect(await system.ledger(id)).toMatchObject({ spent: 12_000n, debits: 4 });
  });

  it('an empty reviews page for a rated app is a 502, charged nothing, never served as data', async () => {
    const { key } = await system.createKey('1');
    const path = `/api/apps/${PLAY_REFERENCE.minecraft.appId}/reviews?sort=helpful&lang=de`;
    system.emulator.setRequestHook(playEmptyReviews);
    try {
      const failed = await at(system.playBaseUrl, path, key);
      expect(failed.status).toBe(502);
      expect(failed.body.data).toBeNull();
    } finally {
      system.emulator.setRequestHook(undefined);
    }
    // The empty page was never taken as data: asked again at once, the catalog still has no answer
    // (it remembers the failure for CACHE_FAILURE_TTL_MS), and nothing is charged.
    const again = await at(system.playBaseUrl, path, key);
    expect([again.status, again.body.data]).toEqual([502, null]);
    expect(await balanceAt(system.playBaseUrl, key)).toBe('1.000000');
  });

  it.each(['apps.reviews', 'apps.similar'] as const)(
    '%s paid with the official x402 client on Base at the Play address',
    async (route) => {
      const path = route === 'apps.reviews' ? REVIEWS_PATH : SIMILAR_PATH;
      const unpaid = await fetch(system.playBaseUrl + path);
      expect(unpaid.status).toBe(402);
      expect(decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!).resource.url).toBe(
        system.playBaseUrl + path,
      );
      const chain = system.stack!.chain('base');
      const payTo = chain.accounts.payTo.address;
      const before = await chain.balanceOf(payTo);
      const res = await wrapFetchWithPayment(fetch, evmClient('base'))(system.playBaseUrl + path);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: { resultCount: number } }).data.resultCount).toBe(50);
      expect(decodePaymentResponseHeader(res.headers.get('payment-response')!).success).toBe(true);
      expect((await chain.balanceOf(payTo)) - before).toBe(3000n);
    },
  );
});
