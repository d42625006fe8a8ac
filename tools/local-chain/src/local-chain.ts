import { freePort } from '@appcat/testing';
import { type Chain, createPublicClient, createTestClient, createWalletClient, defineChain, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { testUsdcAbi } from './abi.js';
import { DEV_ACCOUNTS, type LocalChainAccounts } from './accounts.js';
import { type AnvilExit, spawnAnvil } from './anvil-process.js';
import { loadArtifact } from './artifacts.js';
import { shortStringSlotValue } from './storage.js';
import { BASE_CHAIN_ID, MULTICALL3_ADDRESS, USDC_BY_CHAIN_ID, type UsdcDeployment } from './usdc-deployments.js';

export const DEFAULT_LOCAL_CHAIN_PORT = 8545;
/** 1,000 USDC in atomic units (6 decimals). */
export const DEFAULT_PAYER_FUNDING = 1_000_000_000n;

export interface LocalChainOptions {
  /** Interface anvil listens on. Default 127.0.0.1; 0.0.0.0 in a container. */
  host?: string;
  /** Default 8545; 0 picks a free port (what tests want). */
  port?: number;
  /** Default 8453 (Base). Chains in the USDC table get their real USDC address and domain. */
  chainId?: number;
  /** Where and under which EIP-712 domain the token goes; required for chain ids not in the table. */
  usdc?: UsdcDeployment;
  /** Test USDC minted to the demo payer at start, atomic units. Default 1,000 USDC. */
  payerFunding?: bigint;
}

export interface LocalChain {
  /** JSON-RPC endpoint as this process reaches it (loopback when anvil listens on 0.0.0.0). */
  rpcUrl: string;
  chainId: number;
  /** CAIP-2 id of the chain, e.g. `eip155:8453`. */
  network: `eip155:${number}`;
  /** viem's description of this chain, for clients built against it. */
  chain: Chain;
  usdcAddress: `0x${string}`;
  /** The token's EIP-712 name and version: what payment requirements carry in `extra`. */
  usdcDomain: { name: string; version: string };
  accounts: LocalChainAccounts;
  balanceOf(address: `0x${string}`): Promise<bigint>;
  /** Mints test USDC (atomic units) and resolves once mined, with the transaction hash. */
  mint(to: `0x${string}`, amount: bigint): Promise<`0x${string}`>;
  /** Settles when anvil has exited, through stop() or otherwise. */
  exited: Promise<AnvilExit>;
  stop(): Promise<void>;
}

function usdcFor(chainId: number, override?: UsdcDeployment): UsdcDeployment {
  const deployment = override ?? USDC_BY_CHAIN_ID[chainId];
  if (!deployment) {
    throw new Error(`no USDC address known for chain ${chainId}; pass options.usdc { address, name, version }`);
  }
  return deployment;
}

/**
 * Starts anvil as a stand-in for a real chain (Base by default): TestUSDC's runtime code at the
 * chain's real USDC address, its EIP-712 name/version written into storage, Multicall3 at its
 * canonical address, and the demo payer funded with test USDC.
 */
export async function startLocalChain(options: LocalChainOptions = {}): Promise<LocalChain> {
  const chainId = options.chainId ?? BASE_CHAIN_ID;
  const usdc = usdcFor(chainId, options.usdc);
  const port = options.port === 0 ? await freePort() : (options.port ?? DEFAULT_LOCAL_CHAIN_PORT);
  const [token, multicall] = await Promise.all([loadArtifact('TestUSDC'), loadArtifact('Multicall3')]);

  const anvil = await spawnAnvil(options.host ?? '127.0.0.1', port, chainId);
  try {
    const { rpcUrl } = anvil;
    const chain = defineChain({
      id: chainId,
      name: `Local eip155:${chainId}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    });
    // anvil mines each transaction at once; viem's default 4 s receipt polling would only add latency.
    const transport = http(rpcUrl);
    const pollingInterval = 50;
    const testClient = createTestClient({ mode: 'anvil', chain, transport, pollingInterval });
    const publicClient = createPublicClient({ chain, transport, pollingInterval });
    const minter = createWalletClient({
      account: privateKeyToAccount(DEV_ACCOUNTS.minter.privateKey),
      chain,
      transport,
      pollingInterval,
    });

    await testClient.setCode({ address: usdc.address, bytecode: token.deployedBytecode });
    await testClient.setCode({ address: MULTICALL3_ADDRESS, bytecode: multicall.deployedBytecode });
    // No constructor runs under setCode: the domain is written straight into the token's slots.
    await testClient.setStorageAt({
      address: usdc.address,
      index: Number(token.storageSlots._name),
      value: shortStringSlotValue(usdc.name),
    });
    await testClient.setStorageAt({
      address: usdc.address,
      index: Number(token.storageSlots._version),
      value: shortStringSlotValue(usdc.version),
    });

    const balanceOf = (address: `0x${string}`) =>
      publicClient.readContract({
        address: usdc.address,
        abi: testUsdcAbi,
        functionName: 'balanceOf',
        args: [address],
      });
    // Mints leave one at a time, each taking the minter's pending nonce from this chain. (viem's
    // nonceManager would carry nonces over from another chain with the same id in this process.)
    let minting: Promise<unknown> = Promise.resolve();
    const send = (to: `0x${string}`, amount: bigint) => {
      const sent = minting.then(() =>
        minter.writeContract({ address: usdc.address, abi: testUsdcAbi, functionName: 'mint', args: [to, amount] }),
      );
      minting = sent.catch(() => undefined);
      return sent;
    };
    const mint = async (to: `0x${string}`, amount: bigint) => {
      const hash = await send(to, amount);
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success') throw new Error(`mint of ${amount} to ${to} reverted (${hash})`);
      return hash;
    };

    const funding = options.payerFunding ?? DEFAULT_PAYER_FUNDING;
    if (funding > 0n) await mint(DEV_ACCOUNTS.payer.address, funding);

    return {
      rpcUrl,
      chainId,
      network: `eip155:${chainId}`,
      chain,
      usdcAddress: usdc.address,
      usdcDomain: { name: usdc.name, version: usdc.version },
      accounts: DEV_ACCOUNTS,
      balanceOf,
      mint,
      exited: anvil.exited,
      stop: anvil.stop,
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}
