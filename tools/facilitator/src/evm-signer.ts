import { toFacilitatorEvmSigner, type FacilitatorEvmSigner } from '@x402/evm';
import { type PrivateKeyAccount, createWalletClient, defineChain, http, publicActions } from 'viem';

export interface EvmSignerOptions {
  account: PrivateKeyAccount;
  chainId: number;
  rpcUrl: string;
  /** How long a settlement waits for its receipt before answering `settlement_pending`, ms. */
  receiptTimeoutMs: number;
}

const sendQueues = new Map<string, <T>(send: () => Promise<T>) => Promise<T>>();

/**
 * Transactions from one account to one node leave one at a time, each taking the account's pending
 * nonce from the node: parallel settlements (even by two facilitators in one process) never pick the
 * same nonce, and a restarted local chain, its nonces back at 0, just works. viem's nonceManager
 * remembers nonces per chain id, so it would carry them over to a new chain with the same id.
 */
function sendQueue(key: string): <T>(send: () => Promise<T>) => Promise<T> {
  let queue = sendQueues.get(key);
  if (!queue) {
    let last: Promise<unknown> = Promise.resolve();
    queue = <T>(send: () => Promise<T>): Promise<T> => {
      const sent = last.then(send, send);
      last = sent.catch(() => undefined);
      return sent;
    };
    sendQueues.set(key, queue);
  }
  return queue;
}

/**
 * The facilitator's view of one EVM chain: a viem wallet client (the account pays the gas, which is
 * how the facilitator sponsors it) extended with public actions, narrowed to @x402/evm's signer.
 */
export function createFacilitatorEvmSigner(options: EvmSignerOptions): FacilitatorEvmSigner {
  const { account, chainId, rpcUrl } = options;
  const chain = defineChain({
    id: chainId,
    name: `eip155:${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  // Local chains mine at once; viem's default 4 s polling would make every settlement take 4 s.
  const client = createWalletClient({ account, chain, transport: http(rpcUrl), pollingInterval: 100 }).extend(
    publicActions,
  );
  const oneAtATime = sendQueue(`${rpcUrl}|${account.address}`);
  // @x402/evm's signer type is deliberately loose (abi: unknown[], functionName: string), viem's is
  // generic over the ABI; the casts bridge the two without changing what is sent.
  return toFacilitatorEvmSigner(
    {
      address: account.address,
      getCode: (args) => client.getCode(args),
      readContract: (args) => client.readContract({ ...args, args: args.args ?? [] } as never),
      verifyTypedData: (args) => client.verifyTypedData(args as never),
      writeContract: (args) => oneAtATime(() => client.writeContract({ ...args, args: args.args ?? [] } as never)),
      sendTransaction: (args) => oneAtATime(() => client.sendTransaction(args)),
      waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
    },
    { confirmationTimeoutMs: options.receiptTimeoutMs },
  );
}
