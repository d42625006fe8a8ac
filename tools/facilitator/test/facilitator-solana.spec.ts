import { SOLANA_DEV_ACCOUNTS, type SolanaLedger, startSolanaLedger } from '@appcat/solana-ledger';
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { createKeyPairSignerFromBytes, getBase58Encoder } from '@solana/kit';
import { type DevFacilitator, SOLANA_MAINNET_NETWORK, startDevFacilitator } from '../src/index.js';

describe('dev facilitator over the local Solana ledger', () => {
  let ledger: SolanaLedger;
  let facilitator: DevFacilitator;
  let requirements: PaymentRequirements;
  let payer: x402Client;

  const post = async (path: '/verify' | '/settle', paymentPayload: unknown) => {
    const response = await fetch(`${facilitator.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements: requirements }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const pay = async (): Promise<PaymentPayload> =>
    payer.createPaymentPayload({
      x402Version: 2,
      resource: { url: 'http://127.0.0.1/v1/apps/123' },
      accepts: [requirements],
    });

  beforeAll(async () => {
    ledger = await startSolanaLedger({ port: 0 });
    // No EVM chain runs here: its network is registered but never paid on.
    facilitator = await startDevFacilitator({ rpcUrl: 'http://127.0.0.1:9', port: 0, solana: { rpcUrl: ledger.url } });
    const signer = await createKeyPairSignerFromBytes(
      new Uint8Array(getBase58Encoder().encode(SOLANA_DEV_ACCOUNTS.payer.secretKey)),
    );
    // The official client, pointed at the ledger (registerExactSvmScheme would use the public mainnet RPC).
    payer = new x402Client().register('solana:*', new ExactSvmScheme(signer, { rpcUrl: ledger.url }));
    requirements = {
      scheme: 'exact',
      network: SOLANA_MAINNET_NETWORK,
      amount: '3000',
      asset: ledger.usdcMint,
      payTo: SOLANA_DEV_ACCOUNTS.payTo.address,
      maxTimeoutSeconds: 60,
      extra: { feePayer: SOLANA_DEV_ACCOUNTS.feePayer.address },
    };
  });
  afterAll(async () => {
    await facilitator?.stop();
    await ledger?.close();
  });

  it('lists Solana mainnet in /supported with its fee payer', async () => {
    const supported = (await (await fetch(`${facilitator.url}/supported`)).json()) as { kinds: unknown[] };
    expect(supported.kinds).toContainEqual({
      x402Version: 2,
      scheme: 'exact',
      network: SOLANA_MAINNET_NETWORK,
      extra: { feePayer: SOLANA_DEV_ACCOUNTS.feePayer.address },
    });
    expect(facilitator.solana).toEqual({
      network: SOLANA_MAINNET_NETWORK,
      feePayer: SOLANA_DEV_ACCOUNTS.feePayer.address,
      rpcUrl: ledger.url,
    });
  });

  it('verifies and settles a payment from the official client: payTo gains exactly the amount, once', async () => {
    const before = await ledger.usdcBalance(SOLANA_DEV_ACCOUNTS.payTo.address);
    const payment = await pay();
    expect((await post('/verify', payment)).body).toMatchObject({
      isValid: true,
      payer: SOLANA_DEV_ACCOUNTS.payer.address,
    });
    const settled = await post('/settle', payment);
    expect(settled.body).toMatchObject({
      success: true,
      network: SOLANA_MAINNET_NETWORK,
      payer: SOLANA_DEV_ACCOUNTS.payer.address,
    });
    expect(settled.body.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect(await ledger.usdcBalance(SOLANA_DEV_ACCOUNTS.payTo.address)).toBe(before + 3000n);

    expect((await post('/settle', payment)).body).toMatchObject({ success: false });
    expect(await ledger.usdcBalance(SOLANA_DEV_ACCOUNTS.payTo.address)).toBe(before + 3000n);
  });
});
