import { startLocalChain, type LocalChain } from '@appcat/local-chain';
import { x402Client } from '@x402/core/client';
import { HTTPFacilitatorClient } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { createPublicClient, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startDevFacilitator, type DevFacilitator } from '../src/index.js';

const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

interface Authorization {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
}
type EvmPayload = PaymentPayload & { payload: { signature: string; authorization: Authorization } };

describe('dev facilitator over a local Base chain', () => {
  let chain: LocalChain;
  let facilitator: DevFacilitator;
  let requirements: PaymentRequirements;
  let payer: x402Client;

  const post = async (
    path: '/verify' | '/settle',
    paymentPayload: unknown,
    paymentRequirements: unknown,
    headers = {},
  ) => {
    const response = await fetch(`${facilitator.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  /** A payment signed by the demo payer with the official x402 client (@x402/core + @x402/evm). */
  const pay = async (accept: PaymentRequirements = requirements) =>
    (await payer.createPaymentPayload({
      x402Version: 2,
      resource: { url: 'http://127.0.0.1/v1/apps/123', description: 'one catalog call', mimeType: 'application/json' },
      accepts: [accept],
    })) as EvmPayload;

  beforeAll(async () => {
    chain = await startLocalChain({ port: 0 });
    facilitator = await startDevFacilitator({ rpcUrl: chain.rpcUrl, port: 0 });
    requirements = {
      scheme: 'exact',
      network: 'eip155:8453',
      amount: '3000',
      asset: BASE_USDC,
      payTo: chain.accounts.payTo.address,
      maxTimeoutSeconds: 60,
      extra: { name: 'USD Coin', version: '2' },
    };
    payer = registerExactEvmScheme(new x402Client(), { signer: privateKeyToAccount(chain.accounts.payer.privateKey) });
  });
  afterAll(async () => {
    await facilitator?.stop();
    await chain?.stop();
  });

  it('lists exact on eip155:8453 for x402 v2, signed by its own account', async () => {
    const response = await fetch(`${facilitator.url}/supported`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:8453' }],
      extensions: [],
      signers: { 'eip155:*': [chain.accounts.facilitator.address] },
    });
    expect(facilitator.address).toBe(chain.accounts.facilitator.address);
  });

  it('verifies, then settles a payment on chain with the gas on the facilitator', async () => {
    const payload = await pay();
    expect(payload.accepted).toEqual(requirements);
    const publicClient = createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl) });
    const { payer: payerAccount, payTo, facilitator: gasPayer } = chain.accounts;
    const [usdcBefore, payerEthBefore, gasPayerEthBefore] = await Promise.all([
      chain.balanceOf(payTo.address),
      publicClient.getBalance({ address: payerAccount.address }),
      publicClient.getBalance({ address: gasPayer.address }),
    ]);
    const statsBefore = facilitator.stats();

    const verified = await post('/verify', payload, requirements);
    expect(verified).toEqual({ status: 200, body: { isValid: true, payer: payerAccount.address } });
    expect(await chain.balanceOf(payTo.address)).toBe(usdcBefore); // verifying moves nothing

    const settled = await post('/settle', payload, requirements);
    expect(settled.status).toBe(200);
    expect(settled.body).toEqual({
      success: true,
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      network: 'eip155:8453',
      payer: payerAccount.address,
    });
    const receipt = await publicClient.getTransactionReceipt({ hash: settled.body.transaction as `0x${string}` });
    expect(receipt.status).toBe('success');
    expect(receipt.from.toLowerCase()).toBe(gasPayer.address.toLowerCase());
    expect(await chain.balanceOf(payTo.address)).toBe(usdcBefore + 3000n);
    expect(await publicClient.getBalance({ address: payerAccount.address })).toBe(payerEthBefore);
    expect(await publicClient.getBalance({ address: gasPayer.address })).toBeLessThan(gasPayerEthBefore);
    expect(facilitator.stats()).toMatchObject({
      verifyCalls: statsBefore.verifyCalls + 1,
      verifyValid: statsBefore.verifyValid + 1,
      settleCalls: statsBefore.settleCalls + 1,
      settleSucceeded: statsBefore.settleSucceeded + 1,
    });

    // The same payload a second time: its nonce is spent on chain.
    const replay = await post('/settle', payload, requirements);
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_nonce_already_used',
      transaction: '',
    });
    expect(await chain.balanceOf(payTo.address)).toBe(usdcBefore + 3000n);
    const reverify = await post('/verify', payload, requirements);
    expect(reverify.body).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_nonce_already_used' });
  });

  it('refuses a payload whose amount was changed after signing', async () => {
    const payload = await pay();
    const tampered = {
      ...payload,
      payload: { ...payload.payload, authorization: { ...payload.payload.authorization, value: '1' } },
    };
    const cheaper = { ...requirements, amount: '1' };
    const verdict = await post('/verify', { ...tampered, accepted: cheaper }, cheaper);
    expect(verdict.body).toEqual({
      isValid: false,
      invalidReason: 'invalid_exact_evm_signature',
      payer: chain.accounts.payer.address,
    });
  });

  it('refuses a payment for less than the requirements ask', async () => {
    const cheap = await pay({ ...requirements, amount: '2999' });
    const verdict = await post('/verify', { ...cheap, accepted: requirements }, requirements);
    expect(verdict.body).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_payload_authorization_value_mismatch',
    });
  });

  it('refuses a payment to another receiver than payTo', async () => {
    const elsewhere = await pay({ ...requirements, payTo: chain.accounts.minter.address });
    const verdict = await post('/verify', { ...elsewhere, accepted: requirements }, requirements);
    expect(verdict.body).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_recipient_mismatch' });
    const before = await chain.balanceOf(chain.accounts.minter.address);
    const settled = await post('/settle', { ...elsewhere, accepted: requirements }, requirements);
    expect(settled.body).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_recipient_mismatch',
      transaction: '',
    });
    expect(await chain.balanceOf(chain.accounts.minter.address)).toBe(before);
  });

  it('refuses a bad signature', async () => {
    const payload = await pay();
    const { signature } = payload.payload;
    const flipped = `${signature.slice(0, 10)}${signature[10] === '0' ? '1' : '0'}${signature.slice(11)}`;
    const verdict = await post(
      '/verify',
      { ...payload, payload: { ...payload.payload, signature: flipped } },
      requirements,
    );
    expect(verdict.body).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_signature' });
  });

  it('refuses a payer without enough USDC, with the cause', async () => {
    const broke = registerExactEvmScheme(new x402Client(), { signer: privateKeyToAccount(generatePrivateKey()) });
    const payload = await broke.createPaymentPayload({
      x402Version: 2,
      resource: { url: 'http://127.0.0.1/x' },
      accepts: [requirements],
    });
    const verdict = await post('/verify', payload, requirements);
    expect(verdict.body).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_insufficient_balance' });
  });

  it('answers a network it does not settle on with unsupported_scheme', async () => {
    const monad = {
      ...requirements,
      network: 'eip155:143' as const,
      asset: '0x754704Bc059F8C67012fEd69BC8A327a5aafb603',
    };
    const verify = await post('/verify', await pay(monad), monad);
    expect(verify).toMatchObject({ status: 200, body: { isValid: false, invalidReason: 'unsupported_scheme' } });
    const settle = await post('/settle', await pay(monad), monad);
    expect(settle).toMatchObject({
      status: 200,
      body: { success: false, errorReason: 'unsupported_scheme', network: 'eip155:143' },
    });
  });

  it('answers a malformed body with 400 invalid_payload', async () => {
    const verify = await post('/verify', { x402Version: 2 }, requirements);
    expect(verify.status).toBe(400);
    expect(verify.body).toMatchObject({ isValid: false, invalidReason: 'invalid_payload' });
    expect(verify.body.invalidMessage).toContain('paymentPayload.');
    const settle = await post('/settle', await pay(), { ...requirements, amount: undefined });
    expect(settle.status).toBe(400);
    expect(settle.body).toMatchObject({
      success: false,
      errorReason: 'invalid_payload',
      transaction: '',
      network: 'eip155:8453',
    });
    expect(settle.body.errorMessage).toContain('paymentRequirements.amount');
  });

  it('works with the HTTPFacilitatorClient a resource server uses', async () => {
    const client = new HTTPFacilitatorClient({ url: facilitator.url });
    const supported = await client.getSupported();
    expect(supported.kinds).toContainEqual({ x402Version: 2, scheme: 'exact', network: 'eip155:8453' });
    const payload = await pay();
    const before = await chain.balanceOf(chain.accounts.payTo.address);
    expect(await client.verify(payload, requirements)).toMatchObject({ isValid: true });
    expect(await client.settle(payload, requirements)).toMatchObject({ success: true, network: 'eip155:8453' });
    expect(await chain.balanceOf(chain.accounts.payTo.address)).toBe(before + 3000n);
  });

  it('settles one of several concurrent settlements of the same payload', async () => {
    const payload = await pay();
    const before = await chain.balanceOf(chain.accounts.payTo.address);
    const results = await Promise.all([1, 2, 3].map(() => post('/settle', payload, requirements)));
    expect(results.filter((r) => r.body.success === true)).toHaveLength(1);
    expect(await chain.balanceOf(chain.accounts.payTo.address)).toBe(before + 3000n);
  });

  it('settles distinct payments concurrently (the settlement account’s nonces do not collide)', async () => {
    const payloads = await Promise.all([1, 2, 3, 4].map(() => pay()));
    const before = await chain.balanceOf(chain.accounts.payTo.address);
    const results = await Promise.all(payloads.map((p) => post('/settle', p, requirements)));
    expect(results.map((r) => r.body.success)).toEqual([true, true, true, true]);
    expect(await chain.balanceOf(chain.accounts.payTo.address)).toBe(before + 4n * 3000n);
  });

  describe('fault injection', () => {
    afterEach(() => {
      facilitator.setUnavailable(false);
      facilitator.setDelayMs(0);
    });

    it('answers 503 to everything while unavailable, and recovers', async () => {
      const refusedBefore = facilitator.stats().refusedUnavailable;
      facilitator.setUnavailable(true);
      expect((await fetch(`${facilitator.url}/supported`)).status).toBe(503);
      expect((await fetch(`${facilitator.url}/healthz`)).status).toBe(503);
      const payload = await pay();
      expect((await post('/settle', payload, requirements)).status).toBe(503);
      expect(facilitator.stats().refusedUnavailable).toBe(refusedBefore + 3);
      facilitator.setUnavailable(false);
      expect(await post('/verify', payload, requirements)).toMatchObject({ status: 200, body: { isValid: true } });
    });

    it('holds verify and settle for the configured delay', async () => {
      facilitator.setDelayMs(300);
      const started = Date.now();
      const verdict = await post('/verify', await pay(), requirements);
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
      expect(verdict.body).toMatchObject({ isValid: true });
    });

    it('still settles after a caller that timed out has gone', async () => {
      facilitator.setDelayMs(400);
      const client = new HTTPFacilitatorClient({ url: facilitator.url, timeoutMs: 100 });
      const payload = await pay();
      const before = await chain.balanceOf(chain.accounts.payTo.address);
      await expect(client.settle(payload, requirements)).rejects.toThrow(/timed out|timeout/i);
      // A guard against waiting forever, not a measure of speed.
      const deadline = Date.now() + 30_000;
      while ((await chain.balanceOf(chain.accounts.payTo.address)) === before && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await chain.balanceOf(chain.accounts.payTo.address)).toBe(before + 3000n);
    });
  });
});

// A second chain with the same id in the same process: nonces must come from this chain, not be
// carried over from the first one (the first suite's accounts have sent many transactions).
describe('dev facilitator with a bearer token', () => {
  let chain: LocalChain;
  let facilitator: DevFacilitator;
  beforeAll(async () => {
    chain = await startLocalChain({ port: 0 });
    facilitator = await startDevFacilitator({ rpcUrl: chain.rpcUrl, port: 0, authToken: 's3cret' });
  });
  afterAll(async () => {
    await facilitator?.stop();
    await chain?.stop();
  });

  it('refuses requests without the token or with another one', async () => {
    expect((await fetch(`${facilitator.url}/supported`)).status).toBe(401);
    expect((await fetch(`${facilitator.url}/supported`, { headers: { authorization: 'Bearer s3cre' } })).status).toBe(
      401,
    );
    expect((await fetch(`${facilitator.url}/verify`, { method: 'POST', body: '{}' })).status).toBe(401);
    expect(facilitator.stats().refusedUnauthorized).toBe(3);
    // Health checks carry no credentials.
    expect((await fetch(`${facilitator.url}/healthz`)).status).toBe(200);
  });

  it('serves requests with the token, as HTTPFacilitatorClient sends it', async () => {
    const client = new HTTPFacilitatorClient({
      url: facilitator.url,
      createAuthHeaders: async () => {
        const headers = { Authorization: 'Bearer s3cret' };
        return { verify: headers, settle: headers, supported: headers };
      },
    });
    expect((await client.getSupported()).kinds).toHaveLength(1);
    const requirements: PaymentRequirements = {
      scheme: 'exact',
      network: 'eip155:8453',
      amount: '3000',
      asset: BASE_USDC,
      payTo: chain.accounts.payTo.address,
      maxTimeoutSeconds: 60,
      extra: { name: 'USD Coin', version: '2' },
    };
    const payer = registerExactEvmScheme(new x402Client(), {
      signer: privateKeyToAccount(chain.accounts.payer.privateKey),
    });
    const payload = await payer.createPaymentPayload({
      x402Version: 2,
      resource: { url: 'http://127.0.0.1/x' },
      accepts: [requirements],
    });
    expect(await client.settle(payload, requirements)).toMatchObject({ success: true });
    expect(await chain.balanceOf(chain.accounts.payTo.address)).toBe(3000n);
  });
});
