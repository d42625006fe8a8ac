/*
 * The five store-fact routes (ratings, privacy, versions, top charts, suggestions) end to end: paid by
 * the official @x402 client on Base (checked on chain) and with prepaid credits (checked in
 * Postgres), answered from the store emulator through the catalog, and never charged when refused.
 */
import { decodePaymentResponseHeader } from '@x402/core/http';
import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { privateKeyToAccount } from 'viem/accounts';
import { System } from './support/system.js';

const PRICE = 3000n;

/** One call per route, and what its data must hold. */
const CALLS: [path: string, check: (data: { resultCount: number; results: Record<string, unknown>[] }) => void][] = [
  [
    '/api/apps/284882215/ratings',
    (d) => {
      const [r] = d.results as { count: number; histogram: Record<string, number> }[];
      expect(Object.values(r.histogram).reduce((a, b) => a + b, 0)).toBe(r.count);
    },
  ],
  [
    '/api/apps/com.facebook.Facebook/privacy?country=gb',
    (d) => expect(d.results[0]).toMatchObject({ appId: '284882215', privacyTypes: expect.any(Array) }),
  ],
  ['/api/apps/284882215/versions', (d) => expect(d.results[0]).toHaveProperty('versionDisplay')],
  [
    '/api/charts/top-grossing?genre=6014&page=2',
    (d) => {
      expect(d.resultCount).toBe(20);
      expect(d.results[0]).toMatchObject({ rank: 21, genreId: '6014' });
    },
  ],
  ['/api/suggestions?term=face', (d) => expect(d.results[0]).toMatchObject({ term: expect.stringContaining('face') })],
];

describe('store-fact routes through every service', () => {
  let system: System;
  let paidFetch: typeof fetch;

  beforeAll(async () => {
    system = await System.start({ x402: true });
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: privateKeyToAccount(system.chain!.accounts.payer.privateKey) });
    paidFetch = wrapFetchWithPayment(fetch, client);
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
  });

  it.each(CALLS)(
    'the official x402 client pays %s: 200 with the data, a receipt, 3000 more USDC for payTo',
    async (path, check) => {
      const payTo = system.chain!.accounts.payTo.address;
      const before = await system.chain!.balanceOf(payTo);
      const required = await system.challenge(path);
      expect(required.accepts[0]).toMatchObject({ network: 'eip155:8453', amount: '3000' });
      expect(required.accepts.map((a) => a.network)).toEqual(['eip155:8453', 'eip155:143', system.solana!.network]);
      const res = await paidFetch(system.baseUrl + path);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { status: number; message: string; data: Parameters<typeof check>[0] };
      expect(body).toMatchObject({ status: 200, message: 'ok' });
      check(body.data);
      expect(decodePaymentResponseHeader(res.headers.get('payment-response')!)).toMatchObject({ success: true });
      expect((await system.chain!.balanceOf(payTo)) - before).toBe(PRICE);
    },
  );

  it('credits pay each route 0.003, recorded in Postgres; refused calls cost nothing', async () => {
    const { key, id } = await system.createKey('1');
    for (const [i, [path, check]] of CALLS.entries()) {
      const answer = await system.get(path, key);
      expect(answer.status).toBe(200);
      check(answer.body.data as Parameters<typeof check>[0]);
      expect(answer.headers['x-credits-remaining']).toBe(`0.${String(1_000_000 - 3000 * (i + 1)).padStart(6, '0')}`);
    }
    for (const [path, message] of [
      ['/api/charts/top-new', 'chart must be one of: top-free, top-paid, top-grossing'],
      ['/api/charts/top-free?genre=7010', 'genre must be an App Store genre id such as 6014 (Games)'],
      ['/api/suggestions', 'term is required'],
      ['/api/apps/284882215/ratings?country=zz', 'country must be an ISO 3166-1 alpha-2 country code such as us'],
    ]) {
      const refused = await system.get(path, key);
      expect([refused.status, refused.body.message]).toEqual([400, message]);
    }
    expect(await system.balance(key)).toBe(`0.${String(1_000_000 - 3000 * CALLS.length).padStart(6, '0')}`);
    await system.waitForSpent(id, PRICE * BigInt(CALLS.length));
  });
});
