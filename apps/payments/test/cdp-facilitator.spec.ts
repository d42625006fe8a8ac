/*
 * X402_FACILITATOR=cdp: payments signs each facilitator request with a CDP API key JWT made by Coinbase's
 * @coinbase/x402, and the dev facilitator, in its CDP mode, checks signature and claims as CDP does. A
 * real payment on the local Base chain settles through it; a wrong key, an expired token, a token for
 * another request or a replayed one is refused.
 */
import { type LocalPaymentStack, startLocalPaymentStack } from '@appcat/facilitator';
import { DATE_ONLY_FAKE, type ManagedProcess, startRedisServer } from '@appcat/testing';
import { createFacilitatorConfig } from '@coinbase/x402';
import { jest } from '@jest/globals';
import { x402Client } from '@x402/core/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { Redis } from 'ioredis';
import { generateKeyPairSync } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { readPaymentsConfig } from '../src/config/payments-config.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';
import { x402Payments } from './support/x402-payments.js';

/** A CDP API key secret as CDP issues them: base64 of the Ed25519 seed and public key (64 bytes). */
function ed25519Secret(): string {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  return Buffer.concat([Buffer.from(jwk.d!, 'base64url'), Buffer.from(jwk.x!, 'base64url')]).toString('base64');
}
/** The other kind CDP issues: an EC P-256 key in PKCS#8 PEM. */
function ecSecret(): string {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
}

const ED_KEY = { id: 'organizations/test-org/apiKeys/ed25519-key', secret: ed25519Secret() };
const EC_KEY = { id: 'organizations/test-org/apiKeys/ec-key', secret: ecSecret() };

describe('payments with X402_FACILITATOR=cdp against the dev facilitator checking CDP JWTs', () => {
  let redisServer: ManagedProcess;
  let redis: Redis;
  let database: TestDatabase;
  let stack: LocalPaymentStack;

  beforeAll(async () => {
    [redisServer, database] = await Promise.all([startRedisServer(), createTestDatabase('cdp')]);
    redis = new Redis(redisServer.url);
    stack = await startLocalPaymentStack({ networks: ['base'], cdpKeys: [ED_KEY, EC_KEY] });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    redis?.disconnect();
    await redisServer?.stop();
    await database?.drop();
  });

  const payments = (key: { id: string; secret: string }) =>
    x402Payments(
      readPaymentsConfig({
        ...stack.paymentsEnv,
        X402_FACILITATOR: 'cdp',
        CDP_API_KEY_ID: key.id,
        CDP_API_KEY_SECRET: key.secret,
      }),
      { redis, pool: database.pool },
    );
  /** What the official package sends for /supported. */
  const supportedWith = async (headers: Record<string, string> | undefined) => {
    const response = await fetch(`${stack.facilitator.url}/supported`, { headers });
    return { status: response.status, body: (await response.json()) as { error?: string } };
  };

  it.each([
    ['an Ed25519 key', ED_KEY],
    ['an EC key', EC_KEY],
  ])('reads /supported and settles a real payment, every request signed with %s', async (_kind, key) => {
    const refusedBefore = stack.facilitator.stats().refusedUnauthorized;
    const { check, offers, holds, records } = payments(key);
    await check.run(50);
    const offer = { price: '3000', networks: 'standard' } as const;
    const resource = { url: 'http://127.0.0.1/api/apps/1', description: 'one call', mimeType: 'application/json' };
    const accepts = await offers.accepts(offer);
    const client = registerExactEvmScheme(new x402Client(), { signer: privateKeyToAccount(stack.evmPayerKey) });
    const payload = await client.createPaymentPayload({ x402Version: 2, resource, accepts: accepts as never });

    const chain = stack.chain('base');
    const before = await chain.balanceOf(chain.accounts.payTo.address);
    const signature = encodePaymentSignatureHeader(payload);
    const hold = await holds.authorize(signature, offer, resource);
    const settled = await holds.settle(signature, hold, resource, {
      purpose: 'call',
      route: 'apps.get',
      requestId: 'cdp-test',
    });
    expect(settled.receipt).toMatchObject({
      network: 'eip155:8453',
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect((await chain.balanceOf(chain.accounts.payTo.address)) - before).toBe(3000n);
    expect(stack.facilitator.stats().refusedUnauthorized).toBe(refusedBefore);
    // Recorded for reconciliation, as every settlement is.
    await records.flush();
    const recorded = await database.pool.query('SELECT request_id FROM x402_settlements WHERE transaction = $1', [
      settled.receipt.transaction,
    ]);
    expect(recorded.rows).toEqual([{ request_id: 'cdp-test' }]);
  });

  it('refuses a request without a JWT, or with one signed by another key under a known key id', async () => {
    expect((await supportedWith({})).status).toBe(401);
    const forged = await createFacilitatorConfig(ED_KEY.id, ed25519Secret()).createAuthHeaders!();
    expect(await supportedWith(forged.supported)).toEqual({
      status: 401,
      body: { error: 'unauthorized: signature does not verify' },
    });
    const unknown = await createFacilitatorConfig('organizations/test-org/apiKeys/unknown', ED_KEY.secret)
      .createAuthHeaders!();
    expect(await supportedWith(unknown.supported)).toEqual({
      status: 401,
      body: { error: 'unauthorized: unknown key id (kid)' },
    });
  });

  it('refuses a token made for another request, and one already used', async () => {
    const headers = await createFacilitatorConfig(EC_KEY.id, EC_KEY.secret).createAuthHeaders!();
    // The /settle token names "POST api.cdp.coinbase.com/platform/v2/x402/settle".
    const misused = await supportedWith(headers.settle);
    expect(misused.status).toBe(401);
    expect(misused.body.error).toMatch(
      /^unauthorized: uris must be \["GET api\.cdp\.coinbase\.com\/platform\/v2\/x402\/supported"\]/,
    );
    expect((await supportedWith(headers.supported)).status).toBe(200);
    expect(await supportedWith(headers.supported)).toEqual({
      status: 401,
      body: { error: 'unauthorized: nonce already used' },
    });
  });

  it('refuses an expired token', async () => {
    const headers = await createFacilitatorConfig(ED_KEY.id, ED_KEY.secret).createAuthHeaders!();
    // The facilitator's clock moves past the token's two minutes; nothing else is faked.
    jest.useFakeTimers({
      now: Date.now() + 121_000,
      doNotFake: [...DATE_ONLY_FAKE],
    });
    try {
      expect(await supportedWith(headers.supported)).toEqual({
        status: 401,
        body: { error: 'unauthorized: token expired' },
      });
    } finally {
      jest.useRealTimers();
    }
  });

  it('is a setting payments checks: cdp needs both key settings, and the static token is for url facilitators', () => {
    expect(() =>
      readPaymentsConfig({ X402_FACILITATOR: 'cdp', X402_BASE_PAY_TO: '0x00000000000000000000000000000000000000b1' }),
    ).toThrow(/X402_FACILITATOR=cdp needs CDP_API_KEY_ID and CDP_API_KEY_SECRET/);
    expect(() => readPaymentsConfig({ CDP_API_KEY_ID: 'x' })).toThrow(/X402_FACILITATOR is not cdp/);
    const cdp = readPaymentsConfig({
      X402_FACILITATOR: 'cdp',
      CDP_API_KEY_ID: ED_KEY.id,
      CDP_API_KEY_SECRET: ED_KEY.secret,
      X402_BASE_PAY_TO: '0x00000000000000000000000000000000000000b1',
      X402_MONAD_PAY_TO: 'none',
      X402_SOLANA_PAY_TO: 'none',
      X402_POLYGON_PAY_TO: 'none',
      X402_ARBITRUM_PAY_TO: 'none',
    }).x402;
    expect(cdp).toMatchObject({
      facilitator: 'cdp',
      facilitatorUrl: 'https://api.cdp.coinbase.com/platform/v2/x402',
      cdpApiKey: { id: ED_KEY.id },
    });
  });
});
