import { readLocalChainConfig } from './config.js';
import { startLocalChain } from './local-chain.js';

const config = readLocalChainConfig();
const chain = await startLocalChain(config);
const { payer, payTo, facilitator } = chain.accounts;
const usdc = (await chain.balanceOf(payer.address)) / 1_000_000n;
process.stdout.write(
  [
    `local chain ${chain.network} on ${config.host}:${new URL(chain.rpcUrl).port} (${chain.rpcUrl})`,
    `  test USDC "${chain.usdcDomain.name}" v${chain.usdcDomain.version} at ${chain.usdcAddress}`,
    `  demo payer ${payer.address} holds ${usdc} USDC`,
    `  demo payer key ${payer.privateKey} (anvil's published dev key: local use only)`,
    `  facilitator signer ${facilitator.address}, payTo ${payTo.address}`,
    '',
  ].join('\n'),
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void chain.stop().then(() => process.exit(0)));
}
