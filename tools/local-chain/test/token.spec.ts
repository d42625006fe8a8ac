import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '@appcat/contracts';
import {
  type Hex,
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  domainSeparator,
  http,
  parseSignature,
  toFunctionSignature,
  type AbiFunction,
  type PublicClient,
  type WalletClient,
  type Account,
  type Chain,
  type Transport,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { loadArtifact } from '../src/artifacts.js';
import { startLocalChain, testUsdcAbi, type LocalChain } from '../src/index.js';

const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

interface Authorization {
  from: `0x${string}`;
  to: `0x${string}`;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
}

const randomNonce = () => generatePrivateKey();
const inAnHour = () => BigInt(Math.floor(Date.now() / 1000) + 3600);

describe('TestUSDC on a local Base chain', () => {
  let chain: LocalChain;
  let publicClient: PublicClient;
  // The relayer submits authorizations, as a facilitator would.
  let relayer: WalletClient<Transport, Chain, Account>;

  beforeAll(async () => {
    chain = await startLocalChain({ port: 0 });
    const transport = http(chain.rpcUrl);
    publicClient = createPublicClient({ chain: chain.chain, transport, pollingInterval: 50 });
    relayer = createWalletClient({
      account: privateKeyToAccount(chain.accounts.facilitator.privateKey),
      chain: chain.chain,
      transport,
      pollingInterval: 50,
    });
  });
  afterAll(() => chain?.stop());

  const sign = (auth: Authorization, privateKey: Hex = chain.accounts.payer.privateKey) =>
    privateKeyToAccount(privateKey).signTypedData({
      domain: { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: BASE_USDC },
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization',
      message: auth,
    });

  const authorization = (overrides: Partial<Authorization> = {}): Authorization => ({
    from: chain.accounts.payer.address,
    to: chain.accounts.payTo.address,
    value: 3000n,
    validAfter: 0n,
    validBefore: inAnHour(),
    nonce: randomNonce(),
    ...overrides,
  });

  /** Submits with the (v, r, s) overload, the one @x402/evm uses for 65-byte signatures. */
  const submit = async (auth: Authorization, signature: Hex) => {
    const { v, r, s } = parseSignature(signature);
    const hash = await relayer.writeContract({
      address: BASE_USDC,
      abi: testUsdcAbi,
      functionName: 'transferWithAuthorization',
      args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, Number(v), r, s],
    });
    return publicClient.waitForTransactionReceipt({ hash });
  };

  const simulate = (auth: Authorization, signature: Hex) =>
    publicClient.simulateContract({
      account: relayer.account,
      address: BASE_USDC,
      abi: testUsdcAbi,
      functionName: 'transferWithAuthorization',
      args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, signature],
    });

  const read = <T>(functionName: string, args: unknown[] = []) =>
    publicClient.readContract({ address: BASE_USDC, abi: testUsdcAbi, functionName, args } as never) as Promise<T>;

  it('sits at the real Base USDC address with Base USDC’s EIP-712 domain', async () => {
    expect(chain.usdcAddress).toBe(BASE_USDC);
    expect(await publicClient.getChainId()).toBe(8453);
    expect(await read('name')).toBe('USD Coin');
    expect(await read('version')).toBe('2');
    expect(await read('decimals')).toBe(6);
    expect(await read('DOMAIN_SEPARATOR')).toBe(
      domainSeparator({ domain: { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: BASE_USDC } }),
    );
    const { domain, fields } = await publicClient.getEip712Domain({ address: BASE_USDC });
    expect(fields).toBe('0x0f'); // name, version, chainId, verifyingContract; no salt
    expect(domain).toMatchObject({ name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: BASE_USDC });
  });

  it('funds the demo payer with 1,000 USDC', async () => {
    expect(await chain.balanceOf(chain.accounts.payer.address)).toBeGreaterThanOrEqual(1_000_000_000n);
    expect(await read<bigint>('totalSupply')).toBeGreaterThanOrEqual(1_000_000_000n);
  });

  it('transferWithAuthorization moves exactly the value and uses up the nonce', async () => {
    const auth = authorization({ value: 3000n });
    const [payerBefore, payToBefore] = await Promise.all([chain.balanceOf(auth.from), chain.balanceOf(auth.to)]);
    expect(await read('authorizationState', [auth.from, auth.nonce])).toBe(false);

    const receipt = await submit(auth, await sign(auth));

    expect(receipt.status).toBe('success');
    expect(await chain.balanceOf(auth.from)).toBe(payerBefore - 3000n);
    expect(await chain.balanceOf(auth.to)).toBe(payToBefore + 3000n);
    expect(await read('authorizationState', [auth.from, auth.nonce])).toBe(true);
    const events = receipt.logs.map((log) => decodeEventLog({ abi: testUsdcAbi, data: log.data, topics: log.topics }));
    expect(events).toEqual([
      { eventName: 'AuthorizationUsed', args: { authorizer: auth.from, nonce: auth.nonce } },
      { eventName: 'Transfer', args: { from: auth.from, to: auth.to, value: 3000n } },
    ]);
  });

  it('accepts the bytes-signature overload too', async () => {
    const auth = authorization({ value: 1234n });
    const before = await chain.balanceOf(auth.to);
    const { request } = await simulate(auth, await sign(auth));
    await publicClient.waitForTransactionReceipt({ hash: await relayer.writeContract(request) });
    expect(await chain.balanceOf(auth.to)).toBe(before + 1234n);
  });

  it('rejects a replayed nonce', async () => {
    const auth = authorization();
    const signature = await sign(auth);
    await submit(auth, signature);
    const before = await chain.balanceOf(auth.to);
    await expect(simulate(auth, signature)).rejects.toThrow('FiatTokenV2: authorization is used or canceled');
    await expect(submit(auth, signature)).rejects.toThrow('authorization is used or canceled');
    expect(await chain.balanceOf(auth.to)).toBe(before);
  });

  it('rejects an expired authorization', async () => {
    const auth = authorization({ validBefore: BigInt(Math.floor(Date.now() / 1000) - 60) });
    await expect(simulate(auth, await sign(auth))).rejects.toThrow('FiatTokenV2: authorization is expired');
  });

  it('rejects an authorization that is not valid yet', async () => {
    const auth = authorization({ validAfter: inAnHour() - 60n });
    await expect(simulate(auth, await sign(auth))).rejects.toThrow('FiatTokenV2: authorization is not yet valid');
  });

  it('rejects a signature by anyone but `from`', async () => {
    const auth = authorization();
    await expect(simulate(auth, await sign(auth, chain.accounts.payTo.privateKey))).rejects.toThrow(
      'FiatTokenV2: invalid signature',
    );
    await expect(simulate(auth, await sign(auth, generatePrivateKey()))).rejects.toThrow(
      'FiatTokenV2: invalid signature',
    );
  });

  it('rejects a signature over other terms (tampered value)', async () => {
    const auth = authorization({ value: 3000n });
    const signature = await sign(auth);
    await expect(simulate({ ...auth, value: 3001n }, signature)).rejects.toThrow('FiatTokenV2: invalid signature');
  });

  it('rejects a transfer beyond the balance with USDC’s message', async () => {
    const auth = authorization({ value: 10n ** 18n });
    await expect(simulate(auth, await sign(auth))).rejects.toThrow('ERC20: transfer amount exceeds balance');
  });

  it('mints on request', async () => {
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    await chain.mint(stranger, 5_000_000n);
    expect(await chain.balanceOf(stranger)).toBe(5_000_000n);
  });

  it('exports an ABI identical to the compiled contract’s', async () => {
    const compiled = (await loadArtifact('TestUSDC')).abi as { type: string }[];
    const signatures = (abi: readonly { type: string }[]) =>
      abi
        .filter((item) => item.type === 'function')
        .map((item) => toFunctionSignature(item as AbiFunction))
        .sort();
    expect(signatures(testUsdcAbi)).toEqual(signatures(compiled));
    expect(
      testUsdcAbi
        .filter((i) => i.type === 'event')
        .map((e) => e.name)
        .sort(),
    ).toEqual(
      compiled
        .filter((i) => i.type === 'event')
        .map((e) => (e as unknown as { name: string }).name)
        .sort(),
    );
  });
});

describe('TestUSDC on a local Monad chain', () => {
  let chain: LocalChain;
  beforeAll(async () => {
    chain = await startLocalChain({ port: 0, chainId: 143, payerFunding: 7n });
  });
  afterAll(() => chain?.stop());

  it('takes Monad’s USDC address and its EIP-712 name "USDC" from the asset table', async () => {
    const publicClient = createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl) });
    expect(chain.network).toBe('eip155:143');
    expect(chain.usdcAddress).toBe('0x754704Bc059F8C67012fEd69BC8A327a5aafb603');
    const { domain } = await publicClient.getEip712Domain({ address: chain.usdcAddress });
    expect(domain).toMatchObject({ name: 'USDC', version: '2', chainId: 143, verifyingContract: chain.usdcAddress });
    expect(await chain.balanceOf(chain.accounts.payer.address)).toBe(7n);
  });
});
